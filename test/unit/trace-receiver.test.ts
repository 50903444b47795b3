import { expect } from 'chai';
import { TraceReceiver } from '../support/trace-receiver.js';

describe('test trace receiver', () => {
  it('answers 400 and records an error for a body its decoder rejects, so a bad export cannot pass unnoticed', async () => {
    const receiver = await TraceReceiver.start();
    try {
      const post = (path: string, type: string, body: string | Uint8Array) =>
        fetch(`${receiver.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
      expect((await post('/v1/traces', 'application/x-protobuf', new Uint8Array([0x0a, 0xff, 0xff]))).status).to.equal(400);
      expect((await post('/api/traces', 'application/x-thrift', new Uint8Array([1, 2, 3]))).status).to.equal(400);
      expect((await post('/api/v2/spans', 'application/json', '{"not":"an array"}')).status).to.equal(400);
      expect((await post('/v1/logs', 'application/json', '{}')).status).to.equal(400);
      expect(receiver.errors).to.have.length(4);
      expect(receiver.spans).to.deep.equal([]);
    } finally {
      await receiver.close();
    }
  });
});
