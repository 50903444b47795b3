import { expect } from 'chai';
import { isRequiredField, scalarProperties, schemaAt, shortDescription, unwrap, type JsonSchema } from '../../../domain/deployment/schema-field.js';

/** A Deployment schema as kube-apiserver publishes it: references inlined inside single allOf wrappers. */
const container: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, image: { type: 'string', description: 'Container image name. More info: x.\n\nPossible enum values: y' } },
};
const SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    spec: {
      allOf: [
        {
          type: 'object',
          required: ['selector', 'template'],
          properties: {
            replicas: { type: 'integer', description: 'Number of desired pods.' },
            template: {
              allOf: [
                { type: 'object', properties: { spec: { type: 'object', properties: { containers: { type: 'array', items: { allOf: [container] } } } } } },
              ],
            },
          },
        },
      ],
      description: 'Specification of the desired behavior.',
    },
    metadata: { type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } } },
  },
};

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
    ['metadata.labels.app', 'string'],
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
    expect(shortDescription(undefined)).to.equal('');
    expect(shortDescription({ description: 'x'.repeat(300) }, 20)).to.equal(`${'x'.repeat(19)}…`);
  });

  it('scalarProperties lists the scalar fields of an object, unwrapped', () => {
    expect(scalarProperties(schemaAt(SCHEMA, 'spec.template.spec.containers[]')).map(([k]) => k)).to.deep.equal(['name', 'image']);
    expect(scalarProperties(schemaAt(SCHEMA, 'spec')).map(([k]) => k)).to.deep.equal(['replicas']);
    expect(scalarProperties(undefined)).to.deep.equal([]);
  });
});
