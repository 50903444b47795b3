import { expect } from 'chai';
import { rolesUpTo, type Caller, type Role } from '../../../domain/auth/caller.js';
import { describeRoles, leastRoleForTool, missingRole, requireRole, roleForToolCall } from '../../../domain/auth/tool-access.js';
import { ForbiddenError } from '../../../domain/errors.js';

const caller = (role: Role | undefined): Caller => ({
  id: 'tokens-file:svc:alice',
  username: 'alice',
  groups: [],
  roles: role ? rolesUpTo(role) : [],
  kind: 'tokens-file',
});
const SESSION = `opr_${'a'.repeat(32)}`;

describe('auth: the role each tool call needs', () => {
  const calls: [string, Record<string, unknown>, Role][] = [
    ['version', {}, 'viewer'],
    ['recommend', { intent: 'a web app' }, 'operator'],
    ['deployManifests', { solutionId: 'sol_1' }, 'operator'],
    ['manageOrgData', { dataType: 'pattern', operation: 'list' }, 'viewer'],
    ['manageOrgData', { dataType: 'pattern', operation: 'search', query: 'x' }, 'viewer'],
    ['manageOrgData', { dataType: 'pattern', operation: 'create' }, 'admin'],
    ['manageOrgData', { dataType: 'capabilities', operation: 'scan' }, 'admin'],
    ['manageOrgData', { dataType: 'pattern', operation: 'deleteAll' }, 'admin'],
    // reads are spelled exactly: anything else is a write
    ['manageOrgData', { dataType: 'pattern', operation: 'List' }, 'admin'],
    ['manageOrgData', { dataType: 'pattern' }, 'admin'],
    ['operate', { sessionId: SESSION }, 'viewer'],
    ['operate', { intent: 'scale web' }, 'operator'],
    ['operate', { sessionId: SESSION, executeChoice: 1 }, 'operator'],
    // a look is sessionId alone: any other key, even undefined, acts
    ['operate', { sessionId: SESSION, executeChoice: undefined }, 'operator'],
    ['remediate', { sessionId: SESSION }, 'viewer'],
    ['remediate', { sessionId: SESSION, refine: 'also the db' }, 'operator'],
    // a tool svc has no rule for (a deployment's own) needs operator
    ['customTool', {}, 'operator'],
    // only the table's own names: an inherited property is no rule
    ['constructor', {}, 'operator'],
    ['__proto__', {}, 'operator'],
  ];
  for (const [tool, params, role] of calls) it(`${tool} ${JSON.stringify(params)} needs ${role}`, () => expect(roleForToolCall(tool, params)).to.equal(role));

  it('the least role of a tool is checked before its input is read', () => {
    expect(leastRoleForTool('recommend')).to.equal('operator');
    expect(leastRoleForTool('manageOrgData')).to.equal('viewer');
    expect(leastRoleForTool('remediate')).to.equal('viewer');
    expect(leastRoleForTool('version')).to.equal('viewer');
    expect(leastRoleForTool('noSuchTool')).to.equal('viewer');
    expect(leastRoleForTool('toString')).to.equal('viewer');
  });

  it('a caller without the role gets a 403 naming what they hold; with it, nothing', () => {
    expect(missingRole(caller('admin'), 'operator', 'remediate')).to.equal(undefined);
    const refusal = missingRole(caller('viewer'), 'operator', 'remediate');
    expect(refusal).to.be.instanceOf(ForbiddenError);
    expect(refusal!.message).to.equal('remediate needs the operator role; alice holds role viewer');
    expect(() => requireRole(caller(undefined), 'viewer', 'version')).to.throw(ForbiddenError, 'version needs the viewer role; alice holds no role');
    expect(() => requireRole(caller('operator'), 'operator', 'operate')).to.not.throw();
  });

  it('describes roles in words', () => {
    expect(describeRoles(caller('admin'))).to.equal('roles viewer, operator, admin');
    expect(describeRoles(caller('viewer'))).to.equal('role viewer');
  });
});
