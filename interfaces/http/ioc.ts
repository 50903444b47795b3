import type { IocContainer } from '@tsoa/runtime';
import type { Request } from 'express';
import type { DependencyContainer } from 'tsyringe';

/**
 * tsoa resolves controllers through this factory: each request gets a fresh
 * controller from the container of the app that received it.
 */
export function iocContainer(request: Request): IocContainer {
  const container = request.app.locals.container as DependencyContainer;
  return {
    get: (controller: unknown) => container.resolve(controller as never),
  } as IocContainer;
}
