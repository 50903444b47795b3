import { expect } from 'chai';
import { z } from 'zod';
import { actionPreviewFields, dryRunOutput, refusedOutput } from '../../../../domain/tools/outputs/action-preview-output.js';
import { schemaCases } from '../../../support/schema-cases.js';

type Preview = Record<string, unknown> & { dryRun: Record<string, unknown> };
const preview = z.object(actionPreviewFields);
const valid = (): Preview => ({
  effect: 'update',
  dryRun: { accepted: false, reason: 'Invalid', message: 'spec.replicas: must be >= 0', causes: [{ field: 'spec.replicas', message: 'must be >= 0' }] },
  diff: [{ path: 'spec.replicas', from: 2, to: -1 }],
});

describe('tool outputs: the preview of a proposed action', () => {
  schemaCases(
    preview,
    valid,
    [
      ['an accepted dry run', (p) => void (p.dryRun = { accepted: true })],
      ['a refusal of the caller', (p) => void (p.dryRun.byCaller = true)],
      ['a JSON Patch with its test', (p) => void (p.jsonPatch = [{ op: 'test', path: '/metadata/resourceVersion', value: '7' }])],
      ['a delete pinned to a uid', (p) => ((p.effect = 'delete'), (p.uid = 'u-1'), (p.diff = []))],
    ],
    [
      ['a refusal without its reason', (p) => void delete p.dryRun.reason],
      ['accepted as the string "true"', (p) => void (p.dryRun = { accepted: 'true' })],
      ['byCaller false (it is present only when true)', (p) => void (p.dryRun.byCaller = false)],
      ['an effect outside create, update, delete', (p) => void (p.effect = 'replace')],
      ['a JSON Patch operation outside RFC 6902', (p) => void (p.jsonPatch = [{ op: 'merge', path: '/spec' }])],
      ['a fractional diffOmitted', (p) => void (p.diffOmitted = 1.5)],
      ['a diff without paths', (p) => void (p.diff = [{ to: 1 }])],
    ],
  );

  it("an accepted dry run carries nothing else a client must read; a refusal carries the API server's causes", () => {
    expect(dryRunOutput.parse({ accepted: true, reason: 'x' })).to.deep.equal({ accepted: true });
    expect(refusedOutput.safeParse({ action: 1, description: 'd', reason: 'OutsideWriteScope', message: 'm', causes: [] }).success).to.equal(true);
    expect(refusedOutput.safeParse({ action: 1, description: 'd', reason: 'OutsideWriteScope', message: 'm' }).success).to.equal(false);
  });
});
