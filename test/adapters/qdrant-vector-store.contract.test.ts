import { QdrantVectorStore } from '../../infrastructure/vector/qdrant-vector-store.js';
import { vectorStoreContract } from '../contract/vector-store-contract.js';
import { QdrantServer } from '../support/qdrant-server.js';

vectorStoreContract('qdrant adapter on the wire-faithful server', async () => {
  const server = await new QdrantServer().start();
  return { store: new QdrantVectorStore({ url: server.url }), cleanup: () => server.stop() };
});
