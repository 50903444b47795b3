import { Writable } from 'node:stream';
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { PinoLogger } from '../../infrastructure/logging/pino-logger.js';
import { errorHandler } from '../../interfaces/http/middleware/error-handler.js';
import type { Config } from '../../infrastructure/config/config.js';
import { gateMiddleware, requestGate } from '../../interfaces/http/request-gate.js';

function capture() {
  const lines: any[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: PinoLogger.create('info', stream) };
}

describe('structured logs', () => {
  it('writes JSON lines with credentials redacted and URL userinfo scrubbed', () => {
    const { lines, logger } = capture();
    logger.info('cloning https://bob:s3cret-pass@git.example.com/r.git', {
      headers: { authorization: 'Bearer abc', 'x-svc-git-token': 'ghp_canary' },
      token: 'ghp_canary',
    });
    expect(lines).to.have.length(1);
    const text = JSON.stringify(lines);
    expect(text).to.not.include('s3cret-pass').and.not.include('ghp_canary').and.not.include('Bearer abc');
    expect(lines[0].msg).to.equal('cloning https://***:***@git.example.com/r.git');
    expect(lines[0].headers.authorization).to.equal('[REDACTED]');
  });

  it('puts the request id on every line of a request, and one access line per request', async () => {
    const { lines, logger } = capture();
    const app = express();
    app.use(gateMiddleware(requestGate({ server: { host: '0.0.0.0' }, cluster: {} } as Config, logger)));
    app.get('/x', (_req, res) => {
      (res.locals.log as PinoLogger).warn('inside the handler');
      res.json({});
    });
    app.get('/boom', () => {
      throw new Error('kaboom internals');
    });
    app.use(errorHandler(logger));
    const res = await request(app).get('/x?repo=https://u:p@h/r').expect(200);
    const id = res.headers['x-request-id'];
    const mine = lines.filter((l) => l.requestId === id);
    expect(mine.map((l) => l.msg)).to.deep.equal(['inside the handler', 'request']);
    expect(mine[1]).to.include({ method: 'GET', path: '/x', status: 200 });
    expect(JSON.stringify(lines)).to.not.include('u:p@');

    const boom = await request(app).get('/boom').expect(500);
    expect(boom.body.error).to.deep.equal({ code: 'INTERNAL_ERROR', message: 'Internal server error' });
    const logged = lines.find((l) => l.msg === 'unhandled error');
    expect(logged.requestId).to.equal(boom.headers['x-request-id']);
    expect(logged.err).to.include('kaboom internals');
  });
});
