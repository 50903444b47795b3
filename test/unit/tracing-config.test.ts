import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../infrastructure/config/config.js';
import { parseTracingConfig } from '../../infrastructure/config/tracing-config.js';

describe('tracing config', () => {
  it("has SPEC.md's defaults: off, svc-mcp, console, sampling 1.0, no debug, no length limit", () => {
    expect(loadConfig({}).tracing).to.deep.equal({
      enabled: false,
      serviceName: 'svc-mcp',
      exporter: 'console',
      endpoint: undefined,
      otlpProtocol: 'http/protobuf',
      samplingProbability: 1,
      debug: false,
      attributeValueLengthLimit: undefined,
    });
  });

  it('reads every variable of the table', () => {
    const c = parseTracingConfig({
      OTEL_TRACING_ENABLED: 'true',
      OTEL_SERVICE_NAME: 'svc-prod',
      OTEL_EXPORTER_TYPE: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_SAMPLING_PROBABILITY: '0.25',
      OTEL_DEBUG: 'true',
      OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096',
    });
    expect(c).to.deep.include({ enabled: true, serviceName: 'svc-prod', exporter: 'otlp', samplingProbability: 0.25, debug: true });
    expect(c.attributeValueLengthLimit).to.equal(4096);
    expect(c.endpoint).to.equal('http://collector:4318/v1/traces');
  });

  it('appends /v1/traces to the OTLP base URL once, keeping a path prefix', () => {
    const url = (v: string) => parseTracingConfig({ OTEL_EXPORTER_TYPE: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: v }).endpoint;
    expect(url('http://c:4318/')).to.equal('http://c:4318/v1/traces');
    expect(url('https://gw.example/otel')).to.equal('https://gw.example/otel/v1/traces');
    expect(url('http://c:4318/v1/traces')).to.equal('http://c:4318/v1/traces');
  });

  it('uses the standard Zipkin and Jaeger collector endpoints unless set', () => {
    expect(parseTracingConfig({ OTEL_EXPORTER_TYPE: 'zipkin' }).endpoint).to.equal('http://localhost:9411/api/v2/spans');
    expect(parseTracingConfig({ OTEL_EXPORTER_TYPE: 'jaeger' }).endpoint).to.equal('http://localhost:14268/api/traces');
    expect(parseTracingConfig({ OTEL_EXPORTER_TYPE: 'zipkin', OTEL_EXPORTER_ZIPKIN_ENDPOINT: 'http://z:9411/api/v2/spans' }).endpoint).to.equal(
      'http://z:9411/api/v2/spans',
    );
    expect(parseTracingConfig({ OTEL_EXPORTER_TYPE: 'jaeger', OTEL_EXPORTER_JAEGER_ENDPOINT: 'http://j:14268/api/traces' }).endpoint).to.equal(
      'http://j:14268/api/traces',
    );
  });

  it('refuses otlp without an endpoint at start-up, saying what to set', () => {
    expect(() => loadConfig({ OTEL_TRACING_ENABLED: 'true', OTEL_EXPORTER_TYPE: 'otlp' })).to.throw(
      ConfigError,
      /OTEL_EXPORTER_OTLP_ENDPOINT is required when OTEL_EXPORTER_TYPE=otlp: set it to the collector base URL/,
    );
    // with tracing off there is nothing to send, so nothing is required
    expect(loadConfig({ OTEL_EXPORTER_TYPE: 'otlp' }).tracing.enabled).to.equal(false);
  });

  it('refuses a sampling probability outside 0.0..1.0, or not a number', () => {
    for (const v of ['1.5', '-0.1', '2', 'half', '1e-1']) {
      expect(() => parseTracingConfig({ OTEL_SAMPLING_PROBABILITY: v }), v).to.throw(ConfigError, /^Invalid configuration: OTEL_SAMPLING_PROBABILITY must be/);
    }
    for (const [v, n] of [
      ['0', 0],
      ['0.0', 0],
      ['1', 1],
      ['1.0', 1],
      ['.5', 0.5],
    ] as const) {
      expect(parseTracingConfig({ OTEL_SAMPLING_PROBABILITY: v }).samplingProbability).to.equal(n);
    }
  });

  it('names the variable of every other bad value', () => {
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ OTEL_TRACING_ENABLED: 'yes please' }, /OTEL_TRACING_ENABLED must be true or false/],
      [{ OTEL_EXPORTER_TYPE: 'datadog' }, /OTEL_EXPORTER_TYPE must be one of console, otlp, jaeger, zipkin, got "datadog"/],
      [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/],
      [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL grpc is not supported by svc: use http\/protobuf/],
      [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' }, /OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json/],
      [{ OTEL_EXPORTER_ZIPKIN_ENDPOINT: 'ftp://z' }, /OTEL_EXPORTER_ZIPKIN_ENDPOINT must be an http\(s\) URL/],
      [{ OTEL_EXPORTER_JAEGER_ENDPOINT: '::' }, /OTEL_EXPORTER_JAEGER_ENDPOINT must be an http\(s\) URL/],
      [{ OTEL_DEBUG: '2' }, /OTEL_DEBUG must be true or false/],
      [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '0' }, /OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT must be between 1 and/],
      [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: 'big' }, /OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT must be a whole number/],
    ];
    for (const [env, message] of bad) expect(() => parseTracingConfig(env), JSON.stringify(env)).to.throw(ConfigError, message);
  });
});
