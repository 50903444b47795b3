import { expect } from 'chai';
import { loadConfig } from '../../infrastructure/config/config.js';

describe('manageOrgData config', () => {
  it('has defaults: batches of 4, a 60 s lease, 120 s per kind', () => {
    expect(loadConfig({}).orgData).to.deep.equal({ scanBatchSize: 4, scanLeaseMs: 60000, scanKindTimeoutMs: 120000 });
  });

  it('reads SVC_SCAN_* and names the variable of a bad value', () => {
    expect(loadConfig({ SVC_SCAN_BATCH_SIZE: '8', SVC_SCAN_LEASE_MS: '5000', SVC_SCAN_KIND_TIMEOUT_MS: '30000' }).orgData).to.deep.equal({
      scanBatchSize: 8,
      scanLeaseMs: 5000,
      scanKindTimeoutMs: 30000,
    });
    expect(() => loadConfig({ SVC_SCAN_BATCH_SIZE: '0' })).to.throw(/SVC_SCAN_BATCH_SIZE must be between 1 and 32/);
    expect(() => loadConfig({ SVC_SCAN_LEASE_MS: 'soon' })).to.throw(/SVC_SCAN_LEASE_MS must be a whole number/);
  });
});
