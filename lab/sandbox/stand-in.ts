/** The Kubernetes API stand-in the sandbox serves (one implementation with the tests' cluster). */
export { KubeApiServer } from './kube/kube-api-server.js';
export type { ContainerBehaviour, KubeCluster, Obj } from './kube/kube-cluster.js';
export { RESOURCES } from './kube/kube-fixtures.js';
export { testTls } from './kube/kube-test-ca.js';
export { setDefaults } from './kube/kube-writes.js';
