import { expect } from 'chai';
import { isRequiredField, scalarProperties, schemaAt, shortDescription, unwrap, type JsonSchema } from '../../../domain/deployment/schema-field.js';
import { KIT_SCHEMAS } from '../../support/deploy-kit.js';

/** The kit's Deployment schema, as kube-apiserver publishes it: references inlined inside single allOf wrappers. */
const SCHEMA = KIT_SCHEMAS.find((s) => s.kind === 'Deployment')!.schema as JsonSchema;

describe("deployment: reading a field of a kind's OpenAPI schema", () => {
  it('unwrap folds single allOf wrappers in, the outer node winning', () => {
    expect(unwrap({ allOf: [{ type: 'object', description: 'inner' }], description: 'outer' })).to.deep.equal({ type: 'object', description: 'outer' });
    expect(unwrap('x')).to.equal(undefined);
    expect(unwrap([{ type: 'object' }])).to.equal(undefined);
  });

  it('unwrap stops after five levels (a schema cannot make it loop)', () => {
    let node: JsonSchema = { type: 'string' };
    for (let i = 0; i < 8; i++) node = { allOf: [node] };
    expect(unwrap(node)).to.have.property('allOf');
  });

  const fields: [string, unknown][] = [
    ['spec.replicas', 'integer'],
    ['spec.template.spec.containers[].image', 'string'],
    ['spec.template.spec.containers', 'array'],
    // map values through additionalProperties
    ['spec.template.spec.containers[].resources.limits.cpu', 'string'],
    ['spec.missing', undefined],
    // [] only steps into arrays
    ['spec.replicas[]', undefined],
    // a property name that is also an Object.prototype member is not a field
    ['spec.constructor', undefined],
    ['spec.__proto__', undefined],
  ];
  for (const [field, type] of fields)
    it(`schemaAt ${field}: ${String(type ?? 'no such field')}`, () => {
      const node = schemaAt(SCHEMA, field);
      if (type === undefined) expect(node).to.equal(undefined);
      else expect(node?.type).to.equal(type);
    });

  it("isRequiredField reads the parent's required list, inside arrays too", () => {
    expect(isRequiredField(SCHEMA, 'spec.template')).to.equal(true);
    expect(isRequiredField(SCHEMA, 'spec.replicas')).to.equal(false);
    expect(isRequiredField(SCHEMA, 'spec.template.spec.containers[].name')).to.equal(true);
    expect(isRequiredField(SCHEMA, 'spec')).to.equal(false);
    expect(isRequiredField(SCHEMA, 'nothing.here')).to.equal(false);
  });

  it('shortDescription: the first sentence, without the enum text, bounded', () => {
    expect(shortDescription(schemaAt(SCHEMA, 'spec.template.spec.containers[].image'))).to.equal('Container image name.');
    expect(shortDescription({ description: 'Pull policy. One of Always, Never.\n\nPossible enum values:\n - Always' })).to.equal('Pull policy.');
    expect(shortDescription({ description: 'No full stop' })).to.equal('No full stop');
    expect(shortDescription(undefined)).to.equal('');
    expect(shortDescription({ description: 'x'.repeat(300) }, 20)).to.equal(`${'x'.repeat(19)}…`);
  });

  it('scalarProperties lists the scalar fields of an object, unwrapped', () => {
    expect(scalarProperties(schemaAt(SCHEMA, 'spec.template.spec.containers[]')).map(([k]) => k)).to.deep.equal(['name', 'image']);
    expect(scalarProperties(schemaAt(SCHEMA, 'spec')).map(([k]) => k)).to.deep.equal(['replicas']);
    expect(scalarProperties(undefined)).to.deep.equal([]);
  });
});
