import { expect } from 'chai';
import { ScanCapabilities } from '../../../application/orgdata/scan-capabilities.js';
import { NotFoundError, ValidationError } from '../../../domain/errors.js';
import { dozenKinds, orgDataParts } from '../../support/orgdata-parts.js';
import { rejection } from '../../support/rejection.js';

/** A scanner built directly over the parts' fakes, with a cluster serving a dozen kinds. */
function scanner() {
  const parts = orgDataParts({ batchSize: 2 });
  parts.cluster.resources = dozenKinds();
  return { parts, scan: new ScanCapabilities(parts.deps) };
}

describe('application/orgdata/scan-capabilities: the capability scan started, followed and refused', () => {
  it('answers at once with the scan id, runs the named kinds in the background and reports them done', async () => {
    const { parts, scan } = scanner();
    const started = await scan.start(['Deployment', 'services', 'Nothing']);
    expect(started).to.deep.include({ operation: 'scan', started: true, scanId: 'scan_00000000000000000000000000000001' });
    expect(started.progress).to.deep.include({ status: 'running', total: 3 });
    await scan.idle();
    const { progress } = await scan.progress(started.scanId);
    expect(progress).to.deep.include({ status: 'completed', total: 3 });
    expect(progress!.failures).to.deep.equal([{ resource: 'Nothing', reason: 'the cluster does not serve this resource' }]);
    expect(parts.states.lease).to.equal(undefined);
  });

  it('starts no second scan while one runs: it answers the running one', async () => {
    const { scan } = scanner();
    const first = await scan.start();
    const second = await scan.start();
    expect(second).to.deep.include({ started: false, scanId: first.scanId });
    expect(second.message).to.contain('already running');
    await scan.idle();
  });

  it('refuses resources the cluster does not serve before taking the lease or saving a scan', async () => {
    const { parts, scan } = scanner();
    const e = await rejection(scan.start(['Nothing', 'Else']));
    expect(e).to.be.instanceOf(ValidationError);
    expect(e.message).to.contain('None of the resources to scan is served by the cluster: Nothing, Else');
    expect(parts.states.saves).to.deep.equal([]);
    expect(parts.states.lease).to.equal(undefined);
  });

  it('answers no progress before any scan, and a 404 for a scan that is not the latest', async () => {
    const { scan } = scanner();
    expect((await scan.progress()).progress).to.equal(null);
    await scan.start(['Service']);
    await scan.idle();
    expect(await rejection(scan.progress('scan_other'))).to.be.instanceOf(NotFoundError);
  });
});
