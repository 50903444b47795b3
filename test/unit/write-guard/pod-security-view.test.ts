import { expect } from 'chai';
import { capabilitiesAdded, contexts, dig, notAllowed, unsetOr, viewOf, volumes } from '../../../domain/write-guard/pod-security-view.js';
import { findPods } from '../../../domain/write-guard/pod-shapes.js';
import { podView } from '../../support/pod-views.js';

describe('Pod Security Standards: the pod as the controls read it', () => {
  it('labels each container by the list it is in, and by position when it has no name', () => {
    const view = podView((p) => {
      p.initContainers = [{ name: 'setup', image: 'ghcr.io/a/x:1' }];
      p.ephemeralContainers = [{ image: 'ghcr.io/a/debug:1' }];
    });
    expect(view.containers.map((c) => c.label).sort()).to.deep.equal(['container app', 'ephemeral container 2', 'init container setup'].sort());
  });

  it("labels a Tekton task's steps and sidecars", () => {
    const [pod] = findPods({ spec: { steps: [{ name: 'build', image: 'ghcr.io/a/b:1' }], sidecars: [{ name: 'db', image: 'ghcr.io/a/db:1' }] } });
    expect(
      viewOf(pod!)
        .containers.map((c) => c.label)
        .sort(),
    ).to.deep.equal(['sidecar db', 'step build']);
  });

  it('a pod runs on Windows only when os.name says so', () => {
    expect(podView().windows).to.equal(false);
    expect(podView((p) => void (p.os = { name: 'windows' })).windows).to.equal(true);
    expect(podView((p) => void (p.os = { name: 'Windows' })).windows).to.equal(false);
  });

  it("contexts reads a field of the pod's and of every container's security context", () => {
    const view = podView((p) => void (p.securityContext = { runAsUser: 5 }));
    expect(contexts(view, ['runAsUser'])).to.deep.equal([
      { field: 'securityContext.runAsUser', value: 5 },
      { field: 'container app securityContext.runAsUser', value: undefined },
    ]);
  });

  it('capabilitiesAdded reads a list item by item, and anything else as one value', () => {
    const sc = (add: unknown) => ({ label: 'container app', fields: {}, sc: { capabilities: { add } } });
    const field = 'container app securityContext.capabilities.add';
    expect(capabilitiesAdded(sc(['A', 'B']))).to.deep.equal([
      { field, value: 'A' },
      { field, value: 'B' },
    ]);
    expect(capabilitiesAdded(sc('ALL'))).to.deep.equal([{ field, value: 'ALL' }]);
    expect(capabilitiesAdded(sc(null))).to.deep.equal([]);
  });

  it('volumes are named by their name, else by position', () => {
    const view = podView((p) => void (p.volumes = [{ name: 'data', emptyDir: {} }, { hostPath: { path: '/' } }]));
    expect(volumes(view).map((v) => v.name)).to.deep.equal(['data', '1']);
  });

  it('dig, unsetOr and notAllowed: the small readers every control uses', () => {
    expect(dig({ a: { b: { c: 1 } } }, ['a', 'b', 'c'])).to.equal(1);
    expect(dig({ a: [{ b: 1 }] }, ['a', 'b'])).to.equal(undefined);
    expect(unsetOr(null, false)).to.equal(true);
    expect(unsetOr(false, false)).to.equal(true);
    expect(unsetOr('false', false)).to.equal(false);
    expect(
      notAllowed(
        [
          { field: 'a', value: 1 },
          { field: 'b', value: 2 },
        ],
        (v) => v === 1,
      ),
    ).to.deep.equal([{ field: 'b', value: 2 }]);
  });
});
