import { checkNewPassword } from '../auth/passwords.js';
import { badInput, forbidden, handleTaken, notFound, unauthenticated } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { Login, ProviderIdentity, UserRecord } from '../domain/models.js';
import { LIMITS, cleanOptionalName, cleanOptionalText, normalizeHandle, normalizeWords } from '../domain/validation.js';
import type { Logger } from '../logger.js';
import type { GraphStore } from '../stores/graph/graph-store.js';
import type { ProfilePatch, UserStore } from '../stores/user-store.js';
import type { PasswordHashing } from './password-hashing.js';
import type { SignInLimits } from './sign-in-limits.js';

export interface SignUpInput {
  handle: string;
  displayName?: string | null;
  bio?: string | null;
  interests?: readonly string[] | null;
  /** Required unless the account is linked to a provider identity instead. */
  password?: string | null;
}

export interface UpdateProfileInput {
  displayName?: string | null;
  bio?: string | null;
  interests?: readonly string[] | null;
}

export class UserUseCases {
  constructor(
    private readonly users: UserStore,
    private readonly graph: GraphStore,
    private readonly passwords: PasswordHashing,
    private readonly limits: SignInLimits,
    private readonly logger: Logger,
  ) {}

  /**
   * Creates an account that signs in with its password, or, when the request carries a provider's
   * token (`identity`) with no account yet, one linked to that identity and without a password.
   * `viewerId` is the account the request acts as, if any. A sign-up with a password counts as a
   * password check of `clientAddress` (see SignInLimits.countCheck).
   */
  async signUp(
    input: SignUpInput,
    identity: ProviderIdentity | null,
    viewerId: string | null,
    clientAddress: string,
  ): Promise<UserRecord> {
    if (identity && viewerId) throw forbidden('This identity has an account already');
    const password = input.password ?? null;
    if (identity && password !== null)
      throw badInput('input.password', 'must be left out when signing up with an identity provider token');
    if (!identity && password === null) throw badInput('input.password', 'is required (at least 12 characters)');
    if (password !== null) checkNewPassword(password, 'input.password');
    const user: UserRecord = {
      id: newId('usr'),
      handle: normalizeHandle(input.handle, 'input.handle'),
      displayName: cleanOptionalName(input.displayName, 'input.displayName') ?? null,
      bio: cleanOptionalText(input.bio, 'input.bio', LIMITS.bio) ?? null,
      interests: normalizeWords(input.interests, 'input.interests', LIMITS.interests),
      createdAt: new Date().toISOString(),
      postCount: 0,
      tokenGeneration: 0,
    };
    if (password !== null) await this.passwords.admit(clientAddress);
    // Hashed after every other check, the handle's too (the transaction still settles a race for
    // it): the hash is the expensive part, and a taken handle must not make anyone pay for one.
    const [holder] = await this.users.idsByHandle([user.handle], { consistent: true });
    if (holder !== null) throw handleTaken(user.handle);
    if (password !== null) await this.limits.countCheck(clientAddress);
    const login: Login =
      password !== null
        ? { passwordHash: await this.passwords.hash(password, clientAddress) }
        : { identity: identity! };
    await this.users.create(user, login);
    try {
      await this.graph.upsertUsers([{ id: user.id, handle: user.handle, interests: user.interests }]);
    } catch (error) {
      // The account exists now, and a retried signUp would only meet HANDLE_TAKEN: so this must
      // not fail it. A follow creates the missing node; the next profile update with interests fills it in.
      this.logger.error('user created without their graph node', { userId: user.id, error });
    }
    return user;
  }

  async updateProfile(viewerId: string | null, input: UpdateProfileInput): Promise<UserRecord> {
    if (!viewerId) throw unauthenticated();
    if (input.interests === null) throw badInput('input.interests', 'must be a list (use [] to clear)');
    const patch: ProfilePatch = {
      displayName: cleanOptionalName(input.displayName, 'input.displayName'),
      bio: cleanOptionalText(input.bio, 'input.bio', LIMITS.bio),
      interests:
        input.interests === undefined
          ? undefined
          : normalizeWords(input.interests, 'input.interests', LIMITS.interests),
    };
    const user = await this.users.updateProfile(viewerId, patch);
    if (!user) throw notFound('User', viewerId);
    if (patch.interests !== undefined) {
      await this.graph.upsertUsers([{ id: user.id, handle: user.handle, interests: user.interests }]);
    }
    return user;
  }
}
