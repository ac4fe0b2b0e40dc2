import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One operator's hold on an action at Apple while it is in flight (an extension, a mass
/// extension, a token change, a consumption send, a finish), so a second operator asking for the same
/// action at the same moment is refused instead of asking Apple a second time.
///
/// The hold belongs to the process (the session) that took it, not to a row: a process that dies
/// mid-flight lets it go with it, so what it left pending can be retried at once, and no clock
/// decides when a hold is stale.
/// - PostgreSQL: a session-level advisory lock (`pg_try_advisory_lock(namespace, key)`, the
///   two-key form, apart from the writer lock's one-key form) on the ledger's own session; the
///   server releases it when the session ends.
/// - SQLite: an open-file-description lock (`F_OFD_SETLK`) on one byte of `<database>-inflight`
///   beside the database, chosen by the key's hash; the kernel releases it when the file is
///   closed or the process ends. (Per open file, so two threads of one process are told apart too.)
/// Two different keys may share a byte or a PostgreSQL key (a 32-bit hash): the second is then
/// refused as if busy, which is safe, and rare.
public final class InFlightClaim {
    /// What is held, for messages ("extend:2000000000000001").
    public let key: String
    private var release: (() -> Void)?

    private init(key: String, release: @escaping () -> Void) {
        self.key = key
        self.release = release
    }

    /// Takes the hold on `key`, or returns nil when another session or process holds it now.
    /// Never waits.
    public static func take(_ key: String, on database: SQLDatabase) throws -> InFlightClaim? {
        let hash = Int32(bitPattern: stableHash(key))
        if let postgres = database as? PostgresDatabase {
            guard !postgres.isInTransaction else {
                throw StoreError(.invalidRequest, "an in-flight hold is taken outside a write transaction (it outlives it)")
            }
            let namespace = Int32(bitPattern: stableHash("receiptdesk-inflight:" + postgres.location))
            let taken = try postgres.queryFirst("SELECT pg_try_advisory_lock(?, ?) AS taken", [.integer(Int64(namespace)), .integer(Int64(hash))])?
                .bool("taken") == true
            guard taken else { return nil }
            return InFlightClaim(key: key) {
                // Best effort: if the session is gone, the server has let the lock go already.
                _ = try? postgres.query("SELECT pg_advisory_unlock(?, ?) AS released", [.integer(Int64(namespace)), .integer(Int64(hash))])
            }
        }
        let path = database.location + "-inflight"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError(.cannotOpen, "cannot open \(path) to hold \(key) while Apple is asked: \(String(cString: strerror(errno)))")
        }
        var region = flock()
        region.l_type = Int16(F_WRLCK)
        region.l_whence = Int16(SEEK_SET)
        region.l_start = off_t(UInt32(bitPattern: hash) % 1_000_003)
        region.l_len = 1
        region.l_pid = 0
        guard fcntl(fd, ofdSetLock, &region) == 0 else {
            let failure = errno
            close(fd)
            if failure == EAGAIN || failure == EACCES { return nil }
            throw StoreError(.cannotOpen, "cannot lock \(path) to hold \(key) while Apple is asked: \(String(cString: strerror(failure)))")
        }
        return InFlightClaim(key: key) { close(fd) }
    }

    /// Lets the hold go (also done when the claim is freed, and by the system when the process ends).
    public func finish() {
        release?()
        release = nil
    }

    deinit { finish() }

    /// Linux's F_OFD_SETLK (Glibc exports it only under _GNU_SOURCE).
    private static let ofdSetLock: Int32 = 37

    /// `StableHash.fnv1a` folded to 32 bits.
    static func stableHash(_ text: String) -> UInt32 {
        let hash = StableHash.fnv1a([text])
        return UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
    }
}

extension PurchaseLedger {
    /// Takes the in-flight hold on `key` (see `InFlightClaim`), or refuses with `alreadyExists`
    /// naming `what` when another operator's process holds it: their request is at Apple now.
    public func holdInFlight(_ key: String, _ what: String) throws -> InFlightClaim {
        guard let claim = try InFlightClaim.take(key, on: database) else {
            throw StoreError(.alreadyExists, "\(what) is being asked of Apple by another operator right now: nothing was asked; look again when it is done")
        }
        return claim
    }
}
