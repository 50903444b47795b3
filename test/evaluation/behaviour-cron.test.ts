import { expect } from 'chai';
import { fieldCondition } from '../../domain/evaluation/scenario.js';
import { behaviourHolds } from '../../lab/sandbox/behaviour-conditions.js';
import { sameSchedule, scheduleFields } from '../../lab/sandbox/behaviour-cron.js';
import { KubeCluster } from '../../lab/sandbox/kube/kube-cluster.js';

/** op-cronjob-schedule-change: "run weekly-digest on Fridays at 16:00 instead of Mondays" (it runs at 0 6 * * 1). */
const FRIDAY_4PM = '0 16 * * 5';

describe('sameSchedule: a CronJob schedule fires at the same times, in any spelling', () => {
  it('fails the schedule before the change and passes the fix the transcript makes', () => {
    expect(sameSchedule('0 6 * * 1', FRIDAY_4PM)).to.equal(false);
    expect(sameSchedule('0 16 * * 5', FRIDAY_4PM)).to.equal(true);
  });

  it('passes other spellings of it: day names in any case, leading zeros, a one-value list or range, extra spaces', () => {
    for (const s of [
      '0 16 * * FRI',
      '00 16 * * fri',
      '0 16 * * 5-5',
      '0 16 * * 5,5',
      '  0  16 * *  Fri ',
      '0 16 ? * 5',
      '0 16 1-31 1-12 5',
      '0 16 * JAN-DEC 5',
    ])
      expect(sameSchedule(s, FRIDAY_4PM), s).to.equal(true);
    expect(sameSchedule('@weekly', '0 0 * * 7')).to.equal(true);
    expect(sameSchedule('*/15 * * * *', '0,15,30,45 * * * *')).to.equal(true);
    expect(sameSchedule('5/20 8-18/2 * * MON-FRI', '5,25,45 8,10,12,14,16,18 * * 1,2,3,4,5')).to.equal(true);
  });

  it('fails other times: another day, hour, 4 pm in 12-hour terms, every minute of the hour, both days, and what does not parse', () => {
    for (const s of ['0 16 * * 4', '0 6 * * 5', '0 4 * * 5', '* 16 * * 5', '0 16 * * 1,5', '0 16 * * *', '0 16 * * FRY', '0 16 * * 5 *', '0 24 * * 5', ''])
      expect(sameSchedule(s, FRIDAY_4PM), s).to.equal(false);
    expect(scheduleFields('0 16 * * 8')).to.equal(undefined);
  });

  it('is a condition of the scenario format on a field, judged on the live object', () => {
    const c = new KubeCluster();
    const cronJob = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'weekly-digest', namespace: 'reports' }, spec: { schedule: '0 16 * * FRI' } };
    c.put(cronJob);
    const live = [...c.objects.values()].find((o) => o.kind === 'CronJob');
    expect(behaviourHolds(c, fieldCondition.parse({ path: 'spec.schedule', sameSchedule: FRIDAY_4PM }), live)).to.equal(true);
    expect(behaviourHolds(c, fieldCondition.parse({ path: 'spec.schedule', sameSchedule: '0 6 * * 1' }), live)).to.equal(false);
    expect(fieldCondition.safeParse({ sameSchedule: FRIDAY_4PM }).success).to.equal(false);
  });
});
