import { Controller, Get, Response, Route, Tags } from '@tsoa/runtime';
import { inject, injectable } from 'tsyringe';
import type { CheckReadiness, ReadinessReport } from '../../../application/check-readiness.js';
import { TOKENS } from '../../../infrastructure/tokens.js';

@injectable()
@Route('readyz')
@Tags('Health')
export class ReadinessController extends Controller {
  constructor(@inject(TOKENS.CheckReadiness) private readonly checkReadiness: CheckReadiness) {
    super();
  }

  /**
   * Scan readiness, as a raw object (no envelope): ready when the vector
   * database answers and the embedding service returns a finite vector of the
   * expected dimension. Collection existence and storedCount are informational,
   * as are sharedStateHealthy (with REDIS_URL: whether Redis answers) and warnings.
   * Cached for 30 s; a dependency silent for 10 s counts as unavailable.
   * Bearer-gated; not a deployment probe (use /healthz).
   */
  @Get()
  @Response<ReadinessReport>(503, 'A required dependency is unavailable')
  public async readyz(): Promise<ReadinessReport> {
    const report = await this.checkReadiness.execute();
    this.setStatus(report.ready ? 200 : 503);
    return report;
  }
}
