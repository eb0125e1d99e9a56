/** How many users have a given follower count: the model works on this distribution, never on a list of users. */
export interface FollowerBucket {
  followers: number;
  users: number;
}

export interface PowerLawOptions {
  users: number;
  /** Mean accounts a user follows (so mean followers too, before the cap below). */
  followsPerUser: number;
  /** Zipf exponent of popularity: the user of rank r draws followers in proportion to r^-exponent. */
  exponent: number;
  /** Share of follows whose followee is drawn uniformly instead (everyone gets some), as in the seed's network. */
  uniformShare: number;
}

/**
 * Expected follower counts by popularity rank of the power-law network `npm run seed` generates (uniform share
 * plus Zipf). Ranks with equal counts share a bucket, so ten million users fit in a few thousand.
 */
export function powerLawFollowers(options: PowerLawOptions): FollowerBucket[] {
  const { users, followsPerUser, exponent, uniformShare } = options;
  if (users < 2) throw new Error('a network needs at least 2 users');
  const follows = users * followsPerUser;
  let harmonic = 0;
  for (let rank = 1; rank <= users; rank++) harmonic += rank ** -exponent;
  const buckets: FollowerBucket[] = [];
  for (let rank = 1; rank <= users; rank++) {
    const expected = follows * (uniformShare / users + ((1 - uniformShare) * rank ** -exponent) / harmonic);
    const followers = Math.min(users - 1, Math.round(expected));
    const last = buckets.at(-1);
    if (last && last.followers === followers) last.users += 1;
    else buckets.push({ followers, users: 1 });
  }
  return buckets;
}
