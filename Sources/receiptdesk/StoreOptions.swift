import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// The options every database command takes: `--db`, `--db-password-file`, `--config`,
/// `--operator`, `--json`.
struct StoreOptions {
    let databasePath: String
    /// The PostgreSQL password from `--db-password-file` (handed to libpq, never printed).
    let databasePassword: String?
    let configurationPath: String?
    /// `--operator`, else the login name.
    let givenOperatorName: String
    /// Whether `--operator` named the operator (else the login name).
    var operatorGiven = false
    /// The name the database user writes under, once a ledger was opened for writing (config
    /// `operators`); shared by every copy of these options.
    let identity = OperatorIdentity()
    /// The operator name changes are recorded under.
    var operatorName: String { identity.mapped ?? givenOperatorName }
    let json: Bool
    let configuration: StoreConfiguration
    /// Extra trust anchors (`--trust-anchor CERT`, repeatable): for test certificate authorities.
    let trust: TrustStore

    /// Takes the shared options out of `args` and loads the configuration (refused when invalid).
    static func take(_ args: inout Arguments) throws -> StoreOptions {
        let environment = ProcessInfo.processInfo.environment
        let dbArgument = try args.value("--db")
        let db = DatabaseLocation.resolve(argument: dbArgument, environment: environment)
        let password = try DatabasePassword.take(&args, location: db, argument: dbArgument)
        let configArgument = try args.value("--config")
        let givenOperator = try args.value("--operator")
        let operatorName = givenOperator ?? loginName(environment)
        // Checked before anything is opened, so a refused name creates no database.
        do { try Validate.checkOperatorGiven(operatorName) } catch let error as StoreError { throw CommandFailure.usage(error.reason) }
        let json = args.flag("--json")
        let anchorPaths = try args.values("--trust-anchor")
        let intermediatePaths = try args.values("--legacy-intermediate")
        let (path, configuration) = try ConfigurationLoader.load(argument: configArgument, environment: environment)
        let trust = try AppleConnection.trust(configuration, extraAnchors: try TrustOptions.load(anchorPaths, "--trust-anchor"),
                                              extraIntermediates: try TrustOptions.load(intermediatePaths, "--legacy-intermediate"))
        var options = StoreOptions(databasePath: db, databasePassword: password, configurationPath: path, givenOperatorName: operatorName,
                                   json: json, configuration: configuration, trust: trust)
        options.operatorGiven = givenOperator != nil
        return options
    }

    /// The operator name the database user may write under: with `operators` in the config, the
    /// name mapped to the user the database says this session is (an `--operator` naming someone
    /// else is refused: a name cannot be borrowed), and a user the map does not list may not
    /// write; without it, the name given.
    func operatorName(for database: SQLDatabase) throws -> String {
        let map = configuration.operatorsByDatabaseUser
        guard !map.isEmpty else { return givenOperatorName }
        let user = database.databaseUser ?? "?"
        let bare = String(user.drop { $0 != ":" }.dropFirst())
        guard let mapped = map[bare.isEmpty ? user : bare] else {
            throw CommandFailure.usage("database user \(user) is not listed in the config's operators (\(map.keys.sorted().joined(separator: ", "))): it may not change the ledger")
        }
        if operatorGiven && givenOperatorName != mapped {
            throw CommandFailure.usage("--operator \(givenOperatorName): database user \(user) writes as operator \(mapped) (config operators); a name cannot be borrowed")
        }
        return mapped
    }

    /// The ledger over the database, with a verifier that expects the configured bundle ids.
    ///
    /// Only commands that write (`mayCreate`) may create a SQLite database that is not there, and
    /// they say so on standard error; every other command refuses a missing one (exit 69) rather
    /// than answer from an empty database made on the spot (a typo in `--db` is not an all-clear).
    /// `ids` (value and what it is) are checked first, so input the ledger would refuse never
    /// leaves a new empty database behind. With `checkingRevocation` (commands that verify on a
    /// plain thread: import, notify) the config's `appStore.revocation` applies to what they verify.
    func openLedger(mayCreate: Bool = false, checking ids: [(String?, String)] = [], checkingRevocation: Bool = false) throws -> PurchaseLedger {
        do {
            for (value, what) in ids { if let value { try Validate.checkIdentifier(value, what) } }
        } catch let error as StoreError {
            throw CommandFailure.usage(error.reason)
        }
        let isFile = !PostgresDatabase.isURL(databasePath)
        let missing = isFile && !FileManager.default.fileExists(atPath: databasePath)
        if missing && !mayCreate { throw Self.missing(databasePath) }
        // The schema is db init's and db migrate's: a command that changes the ledger never runs DDL
        // on an existing database (an operator role with table rights only can use it).
        let database = try PurchaseDatabase.open(databasePath, create: mayCreate, migrating: false, password: databasePassword)
        if missing { printError("receiptdesk: created a new purchase database at \(databasePath)") }
        identity.mapped = try operatorName(for: database)
        let verifier = ReceiptVerifier(trust: trust, configuration: configuration)
        let ledger = PurchaseLedger(database: database, configuration: configuration, verifier: verifier)
        let revocation = configuration.appStore.revocation
        if checkingRevocation && revocation.mode != .off {
            ledger.revocation = BlockingRevocationSource(checker: RevocationChecker(policy: revocation, transport: URLSessionTransport(), trust: trust))
        }
        return ledger
    }

    /// The ledger over the database opened for reading only: never created, migrated or written,
    /// and no write lock taken (see `PurchaseDatabase.openForReading`).
    func openLedgerForReading() throws -> PurchaseLedger {
        if !PostgresDatabase.isURL(databasePath) && !FileManager.default.fileExists(atPath: databasePath) {
            throw Self.missing(databasePath)
        }
        let database = try PurchaseDatabase.openForReading(databasePath, password: databasePassword)
        return PurchaseLedger(database: database, configuration: configuration, verifier: ReceiptVerifier(trust: trust, configuration: configuration))
    }

    /// The refusal of a database that is not there, for commands that do not create one.
    static func missing(_ path: String) -> StoreError {
        StoreError(.cannotOpen, "no database at \(path): this command never creates one (check --db or RECEIPTDESK_DB; import, customer add, order create, grant and db init create it)")
    }

    static func loginName(_ environment: [String: String]) -> String {
        if let user = environment["USER"], !user.isEmpty { return user }
        if let name = getlogin() { return String(cString: name) }
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid-\(getuid())"
    }
}

/// The operator name a database user writes under (see `StoreOptions.operatorName(for:)`).
final class OperatorIdentity {
    var mapped: String?
}

/// Finds and reads the configuration: `--config FILE`, else `$RECEIPTDESK_CONFIG`, else
/// `$XDG_CONFIG_HOME/receiptdesk/config.json` (default `~/.config/…`); absent means defaults.
enum ConfigurationLoader {
    static func load(argument: String?, environment: [String: String]) throws -> (String?, StoreConfiguration) {
        let explicit = argument ?? environment["RECEIPTDESK_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        let path = explicit ?? configHome + "/receiptdesk/config.json"
        guard FileManager.default.fileExists(atPath: path) else {
            if let explicit { throw CommandFailure.usage("config \(explicit): no such file") }
            return (nil, .defaults)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure.usage("config \(path): cannot be read")
        }
        do {
            return (path, try StoreConfiguration(json: Array(data), source: path))
        } catch let error as ReceiptError {
            throw CommandFailure.usage(error.reason)
        }
    }
}

/// Parses the dates and durations operators type: RFC 3339, or a plain date `2026-12-31` (midnight UTC).
enum OperatorDate {
    static func parse(_ text: String, flag: String) throws -> Date {
        if let date = RFC3339.parse(text) ?? RFC3339.parse(text + "T00:00:00Z") { return date }
        throw CommandFailure.usage("\(flag) \(text) is not a date (2026-12-31 or 2026-12-31T12:00:00Z)")
    }
}
