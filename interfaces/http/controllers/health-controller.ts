import { Controller, Get, Route, Tags } from '@tsoa/runtime';
import { injectable } from 'tsyringe';

export interface HealthBody {
  status: 'ok';
}

@injectable()
@Route('healthz')
@Tags('Health')
export class HealthController extends Controller {
  /** Liveness: 200 while the process runs. Unauthenticated. */
  @Get()
  public async healthz(): Promise<HealthBody> {
    return { status: 'ok' };
  }
}
