import { diag } from '@opentelemetry/api';
import { expect } from 'chai';
import { routeDiagnostics } from '../../infrastructure/tracing/diag-to-logger.js';
import { CapturingLogger } from '../support/capturing-logger.js';

describe('OpenTelemetry diagnostics in the service log', () => {
  it('without OTEL_DEBUG: warnings and errors only, scrubbed', () => {
    const logger = new CapturingLogger();
    const undo = routeDiagnostics(logger, false, ['sekrit-value-1']);
    try {
      diag.debug('batch exported');
      diag.warn('export to https://u:pw@collector/v1/traces failed', new Error('401 for sekrit-value-1'));
    } finally {
      undo();
    }
    expect(logger.lines.map((l) => [l.level, l.msg])).to.deep.equal([['warn', 'otel: export to https://***:***@collector/v1/traces failed 401 for ***']]);
  });

  it('with OTEL_DEBUG: the debug lines too, at info so they show at the default LOG_LEVEL', () => {
    const logger = new CapturingLogger();
    const undo = routeDiagnostics(logger, true, []);
    try {
      diag.debug('batch exported', { spans: 3 });
    } finally {
      undo();
    }
    expect(logger.lines.map((l) => [l.level, l.msg])).to.deep.include(['info', 'otel: batch exported {"spans":3}']);
    const count = logger.lines.length;
    diag.warn('after undo');
    expect(logger.lines).to.have.length(count);
  });
});
