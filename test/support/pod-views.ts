import type { JsonObject } from '../../domain/json-object.js';
import { viewOf, type Found, type PodSecurityControl, type PodView } from '../../domain/write-guard/pod-security-view.js';
import { findPods } from '../../domain/write-guard/pod-shapes.js';

/** A pod spec that meets the restricted level: what the Pod Security tests change one field of. */
export const restrictedPod = (): JsonObject => ({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{ name: 'app', image: 'ghcr.io/a/web:1', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
});

/** The restricted pod with `edit` applied, as the controls read it; `annotations` are its template's. */
export function podView(edit: (pod: JsonObject & { containers: JsonObject[] }) => void = () => undefined, annotations: JsonObject = {}): PodView {
  const spec = restrictedPod() as JsonObject & { containers: JsonObject[] };
  edit(spec);
  return viewOf(findPods({ metadata: { annotations }, spec })[0]!);
}

/** The restricted pod's first container's security context, to edit. */
export const containerSc = (p: { containers: JsonObject[] }) => p.containers[0]!.securityContext as JsonObject;

/** What the control named `name` of `controls` finds in a pod. */
export const foundBy = (controls: readonly PodSecurityControl[], name: string, view: PodView): Found[] => {
  const control = controls.find((c) => c.name === name);
  if (!control) throw new Error(`no control ${name}`);
  return control.check(view);
};
