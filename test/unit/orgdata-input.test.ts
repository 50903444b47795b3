import { expect } from 'chai';
import { ValidationError } from '../../domain/errors.js';
import { ORG_DATA_OPERATIONS, ORG_DATA_TYPES, VALID_OPERATIONS } from '../../domain/orgdata/org-data-operations.js';
import { TOOL_DEFINITIONS } from '../../domain/tools/tool-definitions.js';
import { ToolRegistry } from '../../domain/tools/tool-registry.js';
import { inputJsonSchema } from '../../interfaces/shared/tool-json-schema.js';
import { patternDoc, policyDoc } from '../support/orgdata-fixtures.js';

const registry = new ToolRegistry(TOOL_DEFINITIONS);
const validate = (input: Record<string, unknown>) => registry.validate('manageOrgData', input);
const fail = (input: Record<string, unknown>) => {
  try {
    validate(input);
  } catch (e) {
    expect(e).to.be.instanceOf(ValidationError);
    return e as ValidationError & { details: { field: string; message: string }[] };
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
};

describe('manageOrgData input: validated per dataType x operation', () => {
  it('refuses a wrong combination with a 400 listing the valid ones', () => {
    const e = fail({ dataType: 'pattern', operation: 'scan' });
    expect(e.details).to.deep.equal([
      {
        field: 'operation',
        message:
          "operation 'scan' is not valid for dataType 'pattern'. Valid combinations: pattern: create, list, get, delete, deleteAll, search; policy: create, list, get, delete, deleteAll, search; capabilities: scan, progress, list, get, delete, deleteAll, search",
      },
    ]);
    expect(fail({ dataType: 'capabilities', operation: 'create' }).message).to.contain('capabilities: scan, progress');
    expect(fail({ dataType: 'policy', operation: 'progress' }).message).to.contain("operation 'progress' is not valid for dataType 'policy'");
  });

  it('accepts every combination of the table and nothing else', () => {
    const minimal: Record<string, Record<string, unknown>> = {
      create: { document: patternDoc },
      get: { id: 'x' },
      delete: { id: 'x' },
      deleteAll: { confirm: true },
      search: { query: 'q' },
    };
    for (const dataType of ORG_DATA_TYPES) {
      for (const operation of ORG_DATA_OPERATIONS) {
        const extra = dataType === 'policy' && operation === 'create' ? { document: policyDoc } : (minimal[operation] ?? {});
        const input = { dataType, operation, ...extra };
        if (VALID_OPERATIONS[dataType].includes(operation)) expect(() => validate(input), `${dataType} ${operation}`).not.to.throw();
        else expect(() => validate(input), `${dataType} ${operation}`).to.throw(ValidationError);
      }
    }
  });

  it('names each required parameter the operation lacks and each one it does not take', () => {
    expect(fail({ dataType: 'pattern', operation: 'get' }).details).to.deep.equal([{ field: 'id', message: 'is required for pattern get' }]);
    expect(fail({ dataType: 'policy', operation: 'search' }).details).to.deep.equal([{ field: 'query', message: 'is required for policy search' }]);
    expect(fail({ dataType: 'pattern', operation: 'create' }).details[0].field).to.equal('document');
    const extra = fail({ dataType: 'pattern', operation: 'list', query: 'x', resources: ['Pod'] });
    expect(extra.details.map((d) => d.field)).to.deep.equal(['query', 'resources']);
    expect(extra.details[0].message).to.equal('is not used by list (it takes: limit, cursor)');
  });

  it('deleteAll needs confirm: true', () => {
    expect(fail({ dataType: 'pattern', operation: 'deleteAll' }).details).to.deep.equal([{ field: 'confirm', message: 'is required for pattern deleteAll' }]);
    expect(fail({ dataType: 'pattern', operation: 'deleteAll', confirm: false }).details[0].field).to.equal('confirm');
    expect(validate({ dataType: 'capabilities', operation: 'deleteAll', confirm: true })).to.include({ confirm: true });
  });

  it('checks a document against its dataType, with bounds', () => {
    const { suggestedResources: _s, ...noResources } = patternDoc;
    expect(fail({ dataType: 'pattern', operation: 'create', document: noResources }).details).to.deep.equal([
      { field: 'document.suggestedResources', message: 'is required for a pattern' },
    ]);
    expect(fail({ dataType: 'policy', operation: 'create', document: { ...policyDoc, suggestedResources: ['Pod'] } }).details[0].field).to.equal(
      'document.suggestedResources',
    );
    expect(fail({ dataType: 'pattern', operation: 'create', document: { ...patternDoc, constraints: [] } }).details[0].field).to.equal('document.constraints');
    expect(fail({ dataType: 'pattern', operation: 'create', document: { ...patternDoc, triggers: [] } }).details[0].field).to.equal('document.triggers');
    expect(fail({ dataType: 'pattern', operation: 'create', document: { ...patternDoc, description: 'x'.repeat(2001) } }).details[0].field).to.equal(
      'document.description',
    );
    expect(fail({ dataType: 'pattern', operation: 'create', document: { ...patternDoc, owner: 'me' } }).details[0]).to.deep.equal({
      field: 'document.owner',
      message: 'unknown parameter',
    });
  });

  it('checks policy constraints: a walkable path, a known kind form, at least one rule, a regular expression that compiles', () => {
    const withConstraint = (c: Record<string, unknown>) => ({ dataType: 'policy', operation: 'create', document: { ...policyDoc, constraints: [c] } });
    expect(() => validate(withConstraint({ kind: '*', field: 'metadata.labels.team', required: true }))).not.to.throw();
    expect(() =>
      validate(withConstraint({ kind: 'Deployment', field: 'spec.template.spec.containers[].image', pattern: 'registry\\.example\\.com/.+' })),
    ).not.to.throw();
    expect(fail(withConstraint({ kind: 'Deployment', field: 'spec..replicas', minimum: 1 })).details[0].field).to.equal('document.constraints.0.field');
    expect(fail(withConstraint({ kind: 'deployment', field: 'spec.replicas', minimum: 1 })).details[0].field).to.equal('document.constraints.0.kind');
    expect(fail(withConstraint({ kind: 'Deployment', field: 'spec.replicas' })).message).to.contain('at least one rule');
    expect(fail(withConstraint({ kind: 'Deployment', field: 'spec.replicas', minimum: 5, maximum: 1 })).message).to.contain('minimum must not exceed maximum');
    expect(fail(withConstraint({ kind: 'Pod', field: 'spec.x', pattern: '(' })).details[0].field).to.equal('document.constraints.0.pattern');
  });

  it('still publishes a plain object schema (catalog, OpenAPI, MCP, CLI) with the new parameters described', () => {
    const def = TOOL_DEFINITIONS.find((d) => d.name === 'manageOrgData')!;
    const schema = inputJsonSchema(def) as { type: string; required: string[]; properties: Record<string, { description?: string }> };
    expect(schema.type).to.equal('object');
    expect(schema.required).to.deep.equal(['dataType', 'operation']);
    expect(Object.keys(schema.properties)).to.deep.equal([
      'dataType',
      'operation',
      'id',
      'document',
      'query',
      'limit',
      'cursor',
      'confirm',
      'resources',
      'cluster',
    ]);
    for (const [name, p] of Object.entries(schema.properties)) expect(p.description, name).to.be.a('string').and.not.empty;
  });
});
