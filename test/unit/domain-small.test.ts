import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { apiGroup, isBuiltInApiVersion, patchTypeFor } from '../../domain/cluster/patch-type.js';
import { ValidationError } from '../../domain/errors.js';
import { computeContentHash, parseContentHash } from '../../domain/uploads/content-hash.js';

describe('patchTypeFor: how svc sends a patch (domain/cluster/patch-type.ts)', () => {
  const cases: [string, unknown, string][] = [
    ['apps/v1', { spec: { replicas: 3 } }, 'strategic'],
    ['v1', { data: { a: 'b' } }, 'strategic'],
    ['networking.k8s.io/v1', { spec: {} }, 'strategic'],
    ['argoproj.io/v1alpha1', { spec: {} }, 'merge'],
    // a group that merely ends like a built-in one is a custom resource
    ['evil.apps/v1', { spec: {} }, 'merge'],
    ['argoproj.io/v1alpha1', [{ op: 'replace', path: '/spec/x', value: 1 }], 'json'],
    ['apps/v1', [{ op: 'replace', path: '/spec/replicas', value: 1 }], 'json'],
  ];
  for (const [apiVersion, patch, type] of cases)
    it(`${apiVersion} ${Array.isArray(patch) ? 'operations' : 'object'}: ${type}`, () => {
      expect(patchTypeFor(apiVersion, patch as never)).to.equal(type);
    });

  it('reads the API group of an apiVersion', () => {
    expect([apiGroup('apps/v1'), apiGroup('v1'), apiGroup('cert-manager.io/v1')]).to.deep.equal(['apps', '', 'cert-manager.io']);
    expect(isBuiltInApiVersion('batch/v1')).to.equal(true);
    expect(isBuiltInApiVersion('cert-manager.io/v1')).to.equal(false);
  });
});

describe('content hashes of uploaded sources (domain/uploads/content-hash.ts)', () => {
  it('accepts sha256:<64 hex> in either case, answering it lower-cased; refuses anything else with the value cut short', () => {
    expect(parseContentHash(`sha256:${'AB'.repeat(32)}`)).to.equal(`sha256:${'ab'.repeat(32)}`);
    for (const bad of [`sha256:${'a'.repeat(63)}`, `md5:${'a'.repeat(64)}`, `sha256:${'g'.repeat(64)}`, 42, undefined])
      expect(() => parseContentHash(bad)).to.throw(ValidationError, /^Invalid contentHash .*: expected sha256:<64 hex digits>$/);
    expect(() => parseContentHash('x'.repeat(1000))).to.throw(`Invalid contentHash ${'x'.repeat(200)}...(1000 characters): expected sha256:<64 hex digits>`);
  });

  it('hashes path, mode, size and bytes of every file in order, as a client computes it', () => {
    const files = [
      { path: 'a.md', mode: 0o644, content: Buffer.from('hello') },
      { path: 'b/run.sh', mode: 0o755, content: Buffer.from('#!/bin/sh\n') },
    ];
    const expected = createHash('sha256').update('a.md\x000644\x005\x00hello').update('b/run.sh\x000755\x0010\x00#!/bin/sh\n').digest('hex');
    expect(computeContentHash(files as never)).to.equal(`sha256:${expected}`);
    // the order, the mode and the bytes all count
    expect(computeContentHash([...files].reverse() as never)).to.not.equal(`sha256:${expected}`);
    expect(computeContentHash([{ ...files[0], mode: 0o755 }, files[1]] as never)).to.not.equal(`sha256:${expected}`);
  });
});
