import { expect } from 'chai';
import { constraintsOf, DOCUMENT_LIMITS, documentEmbeddingText, orgDocumentInput, toOrgDocument } from '../../../domain/orgdata/org-documents.js';
import { schemaCases } from '../../support/schema-cases.js';

type Input = Record<string, unknown> & { triggers: string[] };
const input = () => ({
  description: 'Web apps get an HPA',
  triggers: ['web app', 'website'],
  suggestedResources: ['Deployment', 'HorizontalPodAutoscaler'],
  rationale: 'load varies',
});
const constraint = { kind: 'Deployment', field: 'spec.replicas', minimum: 2, message: 'at least two replicas' };

describe('org data: pattern and policy documents', () => {
  describe('the document of a create', () =>
    schemaCases<Input>(
      orgDocumentInput,
      input,
      [
        ['a creator', (d) => void (d.createdBy = 'platform team')],
        ['a policy with constraints', (d) => ((d.constraints = [constraint]), delete d.suggestedResources)],
        [`${DOCUMENT_LIMITS.triggers} triggers`, (d) => void (d.triggers = Array.from({ length: DOCUMENT_LIMITS.triggers }, (_, i) => `t${i}`))],
      ],
      [
        ['an unknown key (strict: a typo is not stored silently)', (d) => void (d.trigger = 'x')],
        ['no triggers', (d) => void (d.triggers = [])],
        ['a blank trigger', (d) => void (d.triggers = ['   '])],
        ['a trigger past its bound', (d) => void (d.triggers = ['x'.repeat(DOCUMENT_LIMITS.trigger + 1)])],
        ['too many triggers', (d) => void (d.triggers = Array.from({ length: DOCUMENT_LIMITS.triggers + 1 }, (_, i) => `t${i}`))],
        ['a blank description', (d) => void (d.description = ' ')],
        ['an empty resources list', (d) => void (d.suggestedResources = [])],
        ['a constraint with an unknown key', (d) => void (d.constraints = [{ ...constraint, severity: 'high' }])],
      ],
    ));

  it('the input is trimmed', () => {
    expect(orgDocumentInput.parse({ ...input(), description: '  Web apps  ' }).description).to.equal('Web apps');
  });

  it('a stored pattern keeps its resources and no constraints; a policy its constraints and no resources', () => {
    const parsed = orgDocumentInput.parse({ ...input(), constraints: [constraint] });
    const pattern = toOrgDocument('pattern', parsed, 'p1', '2026-12-03T00:00:00Z', 'alice');
    expect(pattern).to.deep.equal({
      id: 'p1',
      dataType: 'pattern',
      description: 'Web apps get an HPA',
      triggers: ['web app', 'website'],
      suggestedResources: ['Deployment', 'HorizontalPodAutoscaler'],
      rationale: 'load varies',
      createdBy: 'alice',
      createdAt: '2026-12-03T00:00:00Z',
    });
    const policy = toOrgDocument('policy', parsed, 'q1', 't', 'alice');
    expect(policy).to.include({ dataType: 'policy' }).and.not.have.property('suggestedResources');
    expect(policy).to.have.deep.property('constraints', [constraint]);
  });

  it("the creator is the input's, else the caller, bounded", () => {
    const parsed = orgDocumentInput.parse({ ...input(), createdBy: 'platform team' });
    expect(toOrgDocument('pattern', parsed, 'p', 't', 'alice').createdBy).to.equal('platform team');
    expect(toOrgDocument('pattern', orgDocumentInput.parse(input()), 'p', 't', 'x'.repeat(500)).createdBy).to.have.length(DOCUMENT_LIMITS.createdBy);
  });

  it('embeds the description and the triggers, one per line', () => {
    expect(documentEmbeddingText({ description: 'd', triggers: ['a', 'b'] })).to.equal('d\na\nb');
  });

  it('reads the constraints of a stored payload again, dropping them all when any is malformed', () => {
    expect(constraintsOf({ constraints: [constraint] })).to.deep.equal([constraint]);
    expect(constraintsOf({})).to.deep.equal([]);
    expect(constraintsOf({ constraints: [constraint, { kind: 'Deployment' }] })).to.deep.equal([]);
    expect(constraintsOf({ constraints: 'spec.replicas >= 2' })).to.deep.equal([]);
  });
});
