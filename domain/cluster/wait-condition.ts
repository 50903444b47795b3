import type { KubeObject, WaitCondition } from './kube-types.js';
import { rolloutStatus } from './rollout-status.js';

/** Whether `object` (null: absent) satisfies `condition`. */
export function conditionMet(object: KubeObject | null, condition: WaitCondition): boolean {
  switch (condition.type) {
    case 'exists':
      return object !== null;
    case 'deleted':
      return object === null;
    case 'rolloutFinished': {
      if (object === null) return false;
      const rollout = rolloutStatus(object);
      return rollout.done || rollout.failed;
    }
    case 'condition': {
      if (object === null) return false;
      const status = object.status as { conditions?: unknown } | undefined;
      const conditions = Array.isArray(status?.conditions) ? status.conditions : [];
      const wanted = condition.status ?? 'True';
      return conditions.some(
        (c: unknown) =>
          typeof c === 'object' && c !== null && (c as { type?: unknown }).type === condition.name && (c as { status?: unknown }).status === wanted,
      );
    }
  }
}
