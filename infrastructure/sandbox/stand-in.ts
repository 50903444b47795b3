/** The Kubernetes API stand-in the sandbox serves (one implementation with the tests' cluster). */
export { KubeApiServer } from '../../test/support/kube-api-server.js';
export type { ContainerBehaviour, KubeCluster, Obj } from '../../test/support/kube-cluster.js';
export { RESOURCES } from '../../test/support/kube-fixtures.js';
export { testTls } from '../../test/support/kube-test-ca.js';
export { setDefaults } from '../../test/support/kube-writes.js';
