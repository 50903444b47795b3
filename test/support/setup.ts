// Loaded by mocha before any test (see .mocharc.json).
import 'reflect-metadata';
import nock from 'nock';

// No test reaches the internet: only loopback connections are allowed.
nock.disableNetConnect();
nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\]|::1)(:\d+)?$/.test(host));

// The AWS credential chain's last resort is the instance metadata service (169.254.169.254): never in
// tests. The one test of that path points AWS_EC2_METADATA_SERVICE_ENDPOINT at a stand-in and lifts this.
process.env.AWS_EC2_METADATA_DISABLED = 'true';

// Every test must assert something (test/support/assertion-count.ts).
import { assertionHooks } from './assertion-count.js';
export const mochaHooks = assertionHooks;
