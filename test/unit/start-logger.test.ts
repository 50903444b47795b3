import { Writable } from 'node:stream';
import { expect } from 'chai';
import type { Logger } from '../../domain/ports/logger.js';
import { PinoLogger } from '../../infrastructure/logging/pino-logger.js';
import { StartLogger } from '../../infrastructure/logging/start-logger.js';
import type { ServerConfig } from '../../infrastructure/config/server-config.js';

type Level = ServerConfig['logLevel'];

/** A StartLogger writing into `quick`, its pino (made on demand, counted) into `viaPino`. */
function startLogger(level: Level = 'info') {
  const quick: string[] = [];
  const viaPino: string[] = [];
  let pinos = 0;
  const stream = new Writable({
    write(chunk, _enc, done) {
      viaPino.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = new StartLogger(
    level,
    (line) => quick.push(line),
    (l): Logger => {
      pinos++;
      return PinoLogger.create(l, stream);
    },
  );
  return { logger, quick, viaPino, pinos: () => pinos };
}

/** PinoLogger's line for the same call, for comparison. */
function pinoLine(level: Level, call: (l: Logger) => void): string[] {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  call(PinoLogger.create(level, stream));
  return lines;
}

const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');

describe('the start logger (infrastructure/logging/start-logger.ts)', () => {
  it('writes flat lines byte for byte as PinoLogger does, without loading pino', () => {
    const calls: ((l: Logger) => void)[] = [
      (l) => l.info('svc listening', { url: 'http://127.0.0.1:3456', auth: 'open' }),
      (l) => l.warn('a "quoted" message\nwith a line break', { n: 3, ok: true, none: null, skipped: undefined, 'odd key"': 'v' }),
      (l) => l.error('cloning https://bob:s3cret-pass@git.example.com/r.git'),
      (l) => l.info('GET /healthz', { status: 200, durationMs: 1.25 }),
    ];
    for (const call of calls) {
      const { logger, quick, pinos } = startLogger();
      call(logger);
      expect(pinos()).to.equal(0);
      expect(quick.map((l) => withoutTime(l.trimEnd()))).to.deep.equal(pinoLine('info', call).map(withoutTime));
      expect(quick.every((l) => l.endsWith('}\n'))).to.equal(true);
      expect(/"time":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"/.test(quick[0] ?? '')).to.equal(true);
    }
  });

  it('keeps the level: lines under it are not written, silent writes none', () => {
    const warnOnly = startLogger('warn');
    warnOnly.logger.info('not this');
    warnOnly.logger.debug('nor this');
    warnOnly.logger.warn('this');
    expect(warnOnly.quick).to.have.length(1);
    const silent = startLogger('silent');
    silent.logger.error('never');
    expect(silent.quick).to.have.length(0);
    expect(silent.pinos()).to.equal(0);
  });

  it('leaves to pino every line it could not write identically: redacted names, objects, pino own keys', () => {
    const { logger, quick, viaPino, pinos } = startLogger();
    logger.info('with a token', { token: 'ghp_canary' });
    logger.info('nested', { headers: { authorization: 'Bearer abc' } });
    logger.error('an error object', { err: new Error('boom') });
    logger.info('a msg field', { msg: 'two' });
    expect(quick).to.have.length(0);
    expect(pinos()).to.equal(1);
    expect(viaPino).to.have.length(4);
    expect(viaPino.join('\n')).to.not.include('ghp_canary').and.not.include('Bearer abc');
  });

  it('goes through pino for every line once full() was called, and for children', () => {
    const { logger, quick, viaPino } = startLogger();
    logger.info('before');
    logger.full();
    logger.info('after', { a: 1 });
    logger.child({ requestId: 'r1' }).info('from a child');
    expect(quick).to.have.length(1);
    expect(viaPino).to.have.length(2);
    expect(JSON.parse(viaPino[1])).to.include({ requestId: 'r1', msg: 'from a child' });
  });
});
