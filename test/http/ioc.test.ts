import { expect } from 'chai';
import type { Request } from 'express';
import { ToolsController } from '../../interfaces/http/controllers/tools-controller.js';
import { iocContainer } from '../../interfaces/http/ioc.js';
import { buildTestApp } from '../support/test-app.js';

describe('tsoa controller resolution', () => {
  it('gives each request a fresh controller from its own app container', async () => {
    const a = buildTestApp();
    const b = buildTestApp();
    const reqA = { app: a.app } as unknown as Request;
    const reqB = { app: b.app } as unknown as Request;
    const first = await iocContainer(reqA).get(ToolsController);
    const second = await iocContainer(reqA).get(ToolsController);
    expect(first).to.be.instanceOf(ToolsController);
    expect(first).to.not.equal(second);
    const other = await iocContainer(reqB).get(ToolsController);
    expect(other).to.be.instanceOf(ToolsController);
    expect(other).to.not.equal(first);
    expect(a.container).to.not.equal(b.container);
    expect(a.app.locals.container).to.equal(a.container);
  });
});
