/**
 * The kubelet's image pull of the Kubernetes API stand-in: whether the
 * registry gives a container its image, and in what words it refuses.
 *
 * - An image the registry does not have (`KubeCluster.knownImages`) is not
 *   found, whatever the credentials.
 * - An image on a registry host that requires credentials
 *   (`KubeCluster.privateRegistries`, a scenario's `privateRegistries`) is
 *   pulled only with a pull secret whose `auths` name that host: one of the
 *   pod's `imagePullSecrets`, in the pod's namespace, of type
 *   `kubernetes.io/dockerconfigjson` (`.dockerconfigjson`, `{"auths": {...}}`)
 *   or `kubernetes.io/dockercfg` (`.dockercfg`, the auths map itself). Without
 *   one the kubelet pulls anonymously and the registry answers 401.
 * - A pod that names no pull secret gets its service account's
 *   (`serviceAccountName`, else `default`), as the ServiceAccount admission
 *   plugin adds them to such a pod. The stand-in reads them at each pull
 *   rather than at admission, so a pod created before its service account
 *   gained them pulls too.
 * - A named pull secret that does not exist makes the kubelet warn
 *   (`FailedToRetrieveImagePullSecret`) and pull without it.
 *
 * Credentials are matched by host, as the kubelet's credential keyring does:
 * a key `https://registry.example/v2/`, `registry.example` or
 * `*.example` names the host `registry.example` (a path in the key must
 * prefix the image's repository; a port must match); `index.docker.io`
 * names Docker Hub. The credentials themselves are not checked: a secret
 * for the host is a secret the registry accepts.
 */
import { normaliseImage, type KubeCluster, type Obj } from './kube-cluster.js';

const PULL_SECRET_KEYS: Record<string, string> = { 'kubernetes.io/dockerconfigjson': '.dockerconfigjson', 'kubernetes.io/dockercfg': '.dockercfg' };

/** `nginx:1.25` -> `docker.io/library/nginx:1.25`, as containerd names it in errors. */
export function fullReference(image: string): string {
  const first = image.split('/')[0];
  if (image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')) return image;
  return image.includes('/') ? `docker.io/${image}` : `docker.io/library/${image}`;
}

/** The registry host (with its port, if any) and the repository path of an image: `registry.example:5000`, `partners/feed`. */
export function imageLocation(image: string): { host: string; repository: string } {
  const ref = fullReference(image).replace(/@.*$/, '');
  const slash = ref.indexOf('/');
  return { host: ref.slice(0, slash).toLowerCase(), repository: ref.slice(slash + 1).replace(/:[^:/]*$/, '') };
}

/** Whether one key of a docker config's `auths` names the image's registry (host glob by label, port, path prefix). */
export function authCovers(key: string, image: string): boolean {
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^/]+)(\/.*)?$/i.exec(key.trim());
  if (!m) return false;
  let host = m[1].toLowerCase();
  let path = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (host === 'index.docker.io' || host === 'registry-1.docker.io') host = 'docker.io';
  if (/^v[12]$/.test(path)) path = '';
  const target = imageLocation(image);
  const [keyName, keyPort = ''] = host.split(':');
  const [imageName, imagePort = ''] = target.host.split(':');
  const keyLabels = keyName.split('.');
  const imageLabels = imageName.split('.');
  const hostMatches = keyLabels.length === imageLabels.length && keyLabels.every((l, i) => l === '*' || l === imageLabels[i]);
  return hostMatches && keyPort === imagePort && (path === '' || target.repository === path || target.repository.startsWith(`${path}/`));
}

/** The registry hosts' keys a pull secret holds (its `auths`); undefined when it is not a pull secret or does not parse. */
function authKeys(secret: Obj): string[] | undefined {
  const key = PULL_SECRET_KEYS[String(secret.type)];
  if (!key) return undefined;
  const raw = secret.stringData?.[key] ?? (typeof secret.data?.[key] === 'string' ? Buffer.from(secret.data[key], 'base64').toString('utf8') : undefined);
  try {
    const parsed: unknown = JSON.parse(raw ?? '');
    const auths = secret.type === 'kubernetes.io/dockercfg' ? parsed : (parsed as Obj | null)?.auths;
    return auths && typeof auths === 'object' && !Array.isArray(auths) ? Object.keys(auths) : undefined;
  } catch {
    return undefined;
  }
}

/** The names of the pull secrets a pod of this spec pulls with: its own, else its service account's. */
export function pullSecretNames(c: KubeCluster, namespace: string, podSpec: Obj): string[] {
  const names = (list: unknown) => ((Array.isArray(list) ? list : []) as Obj[]).map((s) => s?.name).filter((n): n is string => typeof n === 'string');
  const own = names(podSpec.imagePullSecrets);
  if (own.length) return own;
  const account = c.objects.get(c.pathOf('v1', 'ServiceAccount', podSpec.serviceAccountName ?? podSpec.serviceAccount ?? 'default', namespace));
  return names(account?.imagePullSecrets);
}

/** The pull secrets a pod names that do not exist in its namespace (the kubelet warns and pulls without them). */
export function missingPullSecrets(c: KubeCluster, namespace: string, podSpec: Obj): string[] {
  return pullSecretNames(c, namespace, podSpec).filter((name) => !c.objects.has(c.pathOf('v1', 'Secret', name, namespace)));
}

/** Whether a pod of this spec holds credentials for the image's registry host. */
function hasCredentials(c: KubeCluster, namespace: string, podSpec: Obj, image: string): boolean {
  return pullSecretNames(c, namespace, podSpec).some((name) => {
    const secret = c.objects.get(c.pathOf('v1', 'Secret', name, namespace));
    return !!secret && (authKeys(secret) ?? []).some((key) => authCovers(key, image));
  });
}

/** The memory (MiB) the registry's image needs; undefined when the registry does not have it. */
export function imageNeed(c: KubeCluster, image: string): number | undefined {
  return [...c.knownImages].find(([known]) => normaliseImage(known) === normaliseImage(image))?.[1];
}

/** Why the registry refuses the image to a pod of this spec, in containerd's words; undefined when the pull succeeds. */
export function pullError(c: KubeCluster, namespace: string, podSpec: Obj, image: string): string | undefined {
  const ref = fullReference(image);
  if (imageNeed(c, image) === undefined)
    return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
  const { host } = imageLocation(image);
  if (!c.privateRegistries.has(host) || hasCredentials(c, namespace, podSpec, image)) return undefined;
  return (
    `rpc error: code = Unknown desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ` +
    `failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://${host}/token: 401 Unauthorized`
  );
}

/** Whether every image of a pod of this spec (its containers' and init containers') can be pulled. */
export function podPulls(c: KubeCluster, namespace: string, podSpec: Obj): boolean {
  const containers: Obj[] = [...(podSpec.initContainers ?? []), ...(podSpec.containers ?? [])];
  return containers.length > 0 && containers.every((k) => typeof k.image === 'string' && pullError(c, namespace, podSpec, k.image) === undefined);
}
