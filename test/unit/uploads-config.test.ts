import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../infrastructure/config/config.js';
import { DEFAULT_SOURCES_MAX, DEFAULT_SOURCES_MAX_BYTES, parseUploadsConfig } from '../../infrastructure/config/uploads-config.js';

describe('uploads config', () => {
  it('defaults to 100 sources and 32 MiB', () => {
    expect(parseUploadsConfig({})).to.deep.equal({ maxSources: DEFAULT_SOURCES_MAX, maxBytes: DEFAULT_SOURCES_MAX_BYTES, ttlSeconds: 86400 });
    expect(DEFAULT_SOURCES_MAX_BYTES).to.equal(33554432);
    expect(loadConfig({ HOST: '127.0.0.1' }).uploads.maxSources).to.equal(100);
  });

  it('reads SVC_SOURCES_MAX and SVC_SOURCES_MAX_BYTES', () => {
    expect(parseUploadsConfig({ SVC_SOURCES_MAX: '5', SVC_SOURCES_MAX_BYTES: '262144' })).to.deep.equal({ maxSources: 5, maxBytes: 262144, ttlSeconds: 86400 });
  });

  it('refuses bad values, naming the variable', () => {
    expect(() => parseUploadsConfig({ SVC_SOURCES_MAX: '0' })).to.throw(ConfigError, /SVC_SOURCES_MAX must be between 1/);
    expect(() => parseUploadsConfig({ SVC_SOURCES_MAX: 'ten' })).to.throw(ConfigError, /SVC_SOURCES_MAX must be a whole number/);
    expect(() => parseUploadsConfig({ SVC_SOURCES_MAX_BYTES: '262143' })).to.throw(ConfigError, /SVC_SOURCES_MAX_BYTES must be between 262144/);
    expect(() => parseUploadsConfig({ SVC_SOURCES_MAX_BYTES: '32MiB' })).to.throw(ConfigError, /SVC_SOURCES_MAX_BYTES/);
  });
});
