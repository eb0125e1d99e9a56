import type { NotificationStore } from '../../stores/notification-store.js';
import type { NotificationCheck } from './steps/notification-check.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/** `reconcileActor`: after a block or a mute, the actor taken out of each of the recipient's groups it no longer stands in. */
export class ReconcileActorHandler implements TaskHandler<'reconcileActor'> {
  readonly kind = 'reconcileActor';

  constructor(
    private readonly notifications: Pick<NotificationStore, 'groupsOfActor'>,
    private readonly check: Pick<NotificationCheck, 'takeOutUnlessStands'>,
    private readonly pageSize: number,
  ) {}

  async run({
    payload: { recipientId, actorId },
    checkpoint,
    save,
    stopping,
  }: TaskRun<'reconcileActor'>): Promise<RunOutcome> {
    for (let after = checkpoint; ;) {
      const { causes, next } = await this.notifications.groupsOfActor(actorId, recipientId, this.pageSize, after);
      for (const cause of causes) await this.check.takeOutUnlessStands(cause);
      if (next === null) return 'done';
      if (!(await save(next))) return 'lost';
      if (stopping()) return 'stopped';
      after = next;
    }
  }
}
