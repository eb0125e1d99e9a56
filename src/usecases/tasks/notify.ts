import type { NotificationStore } from '../../stores/notification-store.js';
import type { NotificationListener } from '../notifications.js';
import type { NotificationCheck } from './steps/notification-check.js';
import type { RunOutcome, TaskHandler, TaskRun } from './task-handler.js';

/**
 * `notify`: the actor put in the recipient's group while what they did stands, else taken out, so one kind serves an
 * action and its undo; an `undo` task only takes out. Checked again after an add: an undo whose task ran in between
 * found nothing to take out.
 */
export class NotifyHandler implements TaskHandler<'notify'> {
  readonly kind = 'notify';

  constructor(
    private readonly notifications: Pick<NotificationStore, 'addActor' | 'removeActor' | 'groupCount' | 'trim'>,
    private readonly check: Pick<NotificationCheck, 'stands' | 'takeOutUnlessStands'>,
    /** NOTIFICATIONS_MAX: groups a user keeps, trimmed to nine tenths of it when over (as home timelines are). */
    private readonly maxGroups: number,
    private readonly onNotified: NotificationListener,
  ) {}

  async run({ payload: { cause, atMs, undo } }: TaskRun<'notify'>): Promise<RunOutcome> {
    if (cause.actorId === cause.recipientId) return 'done';
    // What stands of an undone action is what another action did, which notified already (or was kept out since).
    if (undo) {
      await this.check.takeOutUnlessStands(cause);
      return 'done';
    }
    if (!(await this.check.stands(cause))) {
      await this.notifications.removeActor(cause);
      return 'done';
    }
    const group = await this.notifications.addActor(cause, atMs);
    if (!(await this.check.stands(cause))) {
      await this.notifications.removeActor(cause);
      return 'done';
    }
    if (group) {
      this.onNotified(cause.recipientId, group);
      if (group.actorCount === 1 && (await this.notifications.groupCount(cause.recipientId)) > this.maxGroups) {
        await this.notifications.trim(cause.recipientId, this.maxGroups - Math.floor(this.maxGroups / 10));
      }
    }
    return 'done';
  }
}
