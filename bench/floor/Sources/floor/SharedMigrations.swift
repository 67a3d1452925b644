/// navprefs' migration steps shared by its two stores, copied from
/// Sources/NavPrefsStore/Engine/SharedMigrations.swift (`check-copies.py` compares them): the
/// migrations in Schema.swift interpolate them as navprefs' do.
enum SharedMigrations {
    /// Numbers the idempotency keys there are per profile and per token, oldest first, once both
    /// schemas added `seq` and `token_seq`, and indexes the numbers: the caps then delete by
    /// number through an index instead of ordering every key of a profile by time.
    static let numberIdempotencyKeys = """
        UPDATE idempotency_keys SET seq = o.seq, token_seq = o.token_seq
        FROM (SELECT profile, key, row_number() OVER (PARTITION BY profile ORDER BY created_at, key) AS seq,
                     CASE WHEN token IS NULL THEN 0
                          ELSE row_number() OVER (PARTITION BY token ORDER BY created_at, profile, key) END AS token_seq
              FROM idempotency_keys) AS o
        WHERE idempotency_keys.profile = o.profile AND idempotency_keys.key = o.key;
        DROP INDEX idempotency_keys_by_token;
        CREATE INDEX idempotency_keys_by_seq ON idempotency_keys (profile, seq);
        CREATE INDEX idempotency_keys_by_token_seq ON idempotency_keys (token, token_seq) WHERE token IS NOT NULL;
        """
}
