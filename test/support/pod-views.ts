import { expect } from 'chai';
import type { JsonObject } from '../../domain/json-object.js';
import { viewOf, type Found, type PodSecurityControl, type PodView } from '../../domain/write-guard/pod-security-view.js';
import { findPods } from '../../domain/write-guard/pod-shapes.js';

/** A pod spec that meets the restricted level: what the Pod Security tests change one field of. */
export const restrictedPod = (): JsonObject => ({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{ name: 'app', image: 'ghcr.io/a/web:1', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
});

/** A pod spec being edited: its containers are a list. */
export type EditedPod = JsonObject & { containers: JsonObject[] };

/** The restricted pod with `edit` applied, as the controls read it; `annotations` are its template's. */
export function podView(edit: (pod: EditedPod) => void = () => undefined, annotations: JsonObject = {}): PodView {
  const spec = restrictedPod() as EditedPod;
  edit(spec);
  return viewOf(findPods({ metadata: { annotations }, spec })[0]!);
}

/** The restricted pod's first container's security context, to edit. */
export const containerSc = (p: { containers: JsonObject[] }) => p.containers[0]!.securityContext as JsonObject;
/** The restricted pod's own security context, to edit. */
export const podSc = (p: EditedPod) => p.securityContext as JsonObject;

/** What the control named `name` of `controls` finds in a pod. */
export const foundBy = (controls: readonly PodSecurityControl[], name: string, view: PodView): Found[] => {
  const control = controls.find((c) => c.name === name);
  if (!control) throw new Error(`no control ${name}`);
  return control.check(view);
};

/** One case of a level's controls: an edit of the restricted pod and exactly what the control reports, by field as a person reads it. */
export interface ControlCase {
  control: string;
  name: string;
  edit: (p: EditedPod) => void;
  /** The pod template's annotations. */
  annotations?: JsonObject;
  found: Found[];
}

/** The tests of a level's controls: the restricted pod breaks none, and each case finds exactly what it says. */
export function controlCases(controls: readonly PodSecurityControl[], cases: readonly ControlCase[]): void {
  it('a restricted pod breaks none of them', () => {
    for (const c of controls) expect(c.check(podView()), c.name).to.deep.equal([]);
  });
  for (const c of cases) it(`${c.control}: ${c.name}`, () => expect(foundBy(controls, c.control, podView(c.edit, c.annotations))).to.deep.equal(c.found));
}
