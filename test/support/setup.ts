// Loaded by mocha before any test (see .mocharc.json).
import 'reflect-metadata';
import nock from 'nock';

// No test reaches the internet: only loopback connections are allowed.
nock.disableNetConnect();
nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\]|::1)(:\d+)?$/.test(host));
