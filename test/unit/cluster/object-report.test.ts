import { expect } from 'chai';
import type { ClusterEvent, KubeObject } from '../../../domain/cluster/kube-types.js';
import { eventLine, EVENTS_BYTES, eventsSection, objectReport, STATUS_BYTES } from '../../../domain/cluster/object-report.js';

const event = (n: number, message = `back-off ${n}`): ClusterEvent => ({
  type: 'Warning',
  reason: 'BackOff',
  message,
  count: n,
  involvedObject: { kind: 'Pod', name: 'web-1' },
});
const pod = (status: Record<string, unknown> | undefined): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', namespace: 'shop', managedFields: [{ manager: 'x' }], annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
  spec: { containers: [{ name: 'web', image: 'ghcr.io/a:1' }] },
  ...(status ? { status } : {}),
});

describe('cluster: the report of an object a model reads', () => {
  it('puts the summary, the status and the events first, and the object without its status last', () => {
    const lines = objectReport(pod({ phase: 'Running' }), [event(1)]).split('\n');
    expect(lines[0]).to.match(/^Pod shop\/web-1: /);
    expect(lines[1]).to.equal('status: {"phase":"Running"}');
    expect(lines[2]).to.equal('events (oldest first):');
    expect(lines[3]).to.equal('Warning BackOff Pod/web-1 x1: back-off 1');
    expect(lines[4]).to.match(/^object \(status above\): \{/);
    const object = JSON.parse(lines[4]!.replace(/^object \(status above\): /, '')) as KubeObject;
    expect(object).to.not.have.property('status');
    // what only the server reads is left out: managed fields, the last-applied copy
    expect(object.metadata).to.deep.equal({ name: 'web-1', namespace: 'shop' });
  });

  it('an object without status or events has neither section', () => {
    const report = objectReport(pod(undefined));
    expect(report.split('\n')).to.have.length(2);
    expect(report).to.match(/\nobject: \{/);
  });

  it('cuts a long status, whole characters only, and says how to read the rest', () => {
    const status = objectReport(pod({ message: `x${'é'.repeat(STATUS_BYTES)}` })).split('\n')[1]!;
    expect(status).to.match(/… \[status cut; ask get_resource with fieldPath "status\.<field>" for the rest\]$/);
    expect(status).to.not.include('\uFFFD');
    expect(Buffer.byteLength(status)).to.be.lessThan(STATUS_BYTES + 120);
  });

  it('one event on one line, bounded', () => {
    expect(eventLine(event(2, 'line one\n\tline two'))).to.equal('Warning BackOff Pod/web-1 x2: line one line two');
    const long = eventLine(event(3, 'x'.repeat(1000)));
    expect(long.length).to.equal(301);
    expect(long.endsWith('…')).to.equal(true);
  });

  it('keeps the newest events that fit, oldest first, and counts those left out', () => {
    expect(eventsSection([])).to.equal('events: none');
    const many = Array.from({ length: 40 }, (_, i) => event(i + 1, `m${i + 1} ${'x'.repeat(200)}`));
    const section = eventsSection(many);
    const lines = section.split('\n').slice(1);
    expect(Buffer.byteLength(lines.join('\n'))).to.be.at.most(EVENTS_BYTES);
    expect(lines.at(-1)).to.match(/x40: m40 /);
    const first = Number(/x(\d+):/.exec(lines[0]!)![1]);
    expect(lines).to.have.length(40 - first + 1);
    expect(section.split('\n')[0]).to.equal(`events (oldest first; ${first - 1} older not shown):`);
  });
});
