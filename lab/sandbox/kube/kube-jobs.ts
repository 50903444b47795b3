/**
 * The simulated Job controller of the Kubernetes API stand-in.
 *
 * A Job (with containers in its template) runs pods `<job>-<5 chars>` labelled
 * `batch.kubernetes.io/job-name`, `job-name` and `controller-uid`, at most
 * `parallelism` (default 1) at once and no more than the completions still
 * missing (`completions`, default 1). A pod that Succeeded counts one
 * completion; one that Failed (restartPolicy Never) counts one failure, and
 * under OnFailure every restart of a container does. Once the completions are
 * reached the Job is Complete (conditions SuccessCriteriaMet and Complete,
 * `completionTime`, Normal `Completed`); once failures exceed `backoffLimit`
 * (default 6) it is Failed (FailureTarget and Failed, reason
 * BackoffLimitExceeded "Job has reached the specified backoff limit", Warning
 * `BackoffLimitExceeded`), its running pods deleted. A finished Job runs
 * nothing more, as the real one: fixing what its pods read does not rerun it.
 * After a Failed pod the next one waits the controller's back-off (10 s,
 * doubling, at most 6 min), so a `backoffLimit` of 6 lasts about 10 minutes.
 * Status: active, ready, succeeded, failed, startTime.
 */
import type { KubeCluster, Obj } from './kube-cluster.js';
import { podFinished, podReady } from './kube-pods.js';
import { createPod } from './kube-replicasets.js';

export const jobFinished = (job: Obj): 'Complete' | 'Failed' | undefined =>
  job.status?.conditions?.find((c: Obj) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type;

function failuresOf(pods: Obj[]): number {
  let n = 0;
  for (const p of pods) {
    if (p.status?.phase === 'Failed') n += 1;
    else if (p.spec?.restartPolicy === 'OnFailure') for (const s of p.status?.containerStatuses ?? []) n += s.restartCount ?? 0;
  }
  return n;
}

/** The controller's back-off after a failed pod: the next one only 10 s × 2^(failures-1) (at most 6 min) after the last failure. */
function backedOff(c: KubeCluster, pods: Obj[], failed: number): boolean {
  const last = Math.max(
    0,
    ...pods
      .filter((p) => p.status?.phase === 'Failed')
      .flatMap((p) => (p.status.containerStatuses ?? []).map((s: Obj) => Date.parse(s.state?.terminated?.finishedAt ?? '') || 0)),
  );
  return failed > 0 && last > 0 && c.nowMs() < last + Math.min(10 * 2 ** (failed - 1), 360) * 1000;
}

/** Whether a Job that has not finished is waiting out its back-off before its next pod. */
export function jobsBackingOff(c: KubeCluster): boolean {
  return c.all('Job').some((job) => {
    if (jobFinished(job) || !job.spec?.template?.spec?.containers?.length) return false;
    const pods = c.owned(job, 'Pod');
    return !pods.some((p) => !podFinished(p)) && backedOff(c, pods, failuresOf(pods));
  });
}

export function reconcileJobs(c: KubeCluster): void {
  for (const job of c.all('Job')) {
    if (!job.spec?.template?.spec?.containers?.length || jobFinished(job) || job.spec.suspend) continue;
    const name = job.metadata.name;
    const completions = job.spec.completions ?? 1;
    const parallelism = job.spec.parallelism ?? 1;
    const backoffLimit = job.spec.backoffLimit ?? 6;
    const labels = {
      'batch.kubernetes.io/controller-uid': job.metadata.uid,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': job.metadata.uid,
      'job-name': name,
    };
    let pods = c.owned(job, 'Pod');
    const succeeded = pods.filter((p) => p.status?.phase === 'Succeeded').length;
    const failed = failuresOf(pods);
    let finished: Obj | undefined;
    if (succeeded >= completions) finished = { type: 'Complete', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
    else if (failed > backoffLimit) finished = { type: 'Failed', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    if (!finished) {
      const active = pods.filter((p) => !podFinished(p)).length;
      for (let i = active; i < Math.min(parallelism, completions - succeeded) && !backedOff(c, pods, failed); i++) {
        const pod = createPod(c, job, `${name}-${c.nameSuffix()}`, labels);
        c.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, 'job-controller');
      }
    } else {
      for (const p of pods.filter((x) => !podFinished(x))) {
        c.remove(p);
        c.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`, 'job-controller');
      }
      if (finished.type === 'Complete') c.event(job, 'Normal', 'Completed', 'Job completed', 'job-controller');
      else c.event(job, 'Warning', finished.reason, finished.message, 'job-controller');
    }
    pods = c.owned(job, 'Pod');
    const active = pods.filter((p) => !podFinished(p));
    c.update(job, (j) => {
      const cond = (type: string) => ({
        type,
        status: 'True',
        lastProbeTime: c.now(),
        lastTransitionTime: c.now(),
        reason: finished!.reason,
        message: finished!.message,
      });
      const conditions = finished
        ? [cond(finished.type === 'Complete' ? 'SuccessCriteriaMet' : 'FailureTarget'), cond(finished.type)]
        : (j.status?.conditions ?? []);
      j.status = {
        startTime: j.status?.startTime ?? c.now(),
        ...(active.length ? { active: active.length } : {}),
        ready: active.filter(podReady).length,
        ...(succeeded ? { succeeded } : {}),
        ...(failed ? { failed } : {}),
        terminating: 0,
        uncountedTerminatedPods: {},
        ...(conditions.length ? { conditions } : {}),
        ...(finished?.type === 'Complete' ? { completionTime: c.now() } : {}),
      };
    });
  }
}
