import Foundation

/// Least-privilege roles for a team's PostgreSQL purchase database (`receiptdesk db roles`):
/// group roles (NOLOGIN) that the team's login roles are made members of.
/// - reader: reads every table (support staff who only look);
/// - operator: the changing actions (grant, revoke, restore, conflicts, orders, Apple's side,
///   imports from the console), on every ledger table;
/// - service: import, notify and serve: receipts, transactions, customers, orders, conflicts,
///   notifications and Apple's state, never manual grants, revocations or transfers;
/// - owner: the schema's tables (migrations: `db migrate`), and the only role that may change or
///   delete audit entries.
/// The audit log is append-only for all but the owner twice over: UPDATE, DELETE and TRUNCATE
/// are granted to nobody else, and a trigger refuses them to anyone not in the owner role
/// (so a grant made by mistake later does not open it). Nobody but the owner changes the schema.
public struct DatabaseRoles: Sendable {
    /// The group roles' common prefix: `<prefix>_reader`, `_operator`, `_service`, `_owner`.
    public let prefix: String

    public var reader: String { prefix + "_reader" }
    public var operatorRole: String { prefix + "_operator" }
    public var service: String { prefix + "_service" }
    public var owner: String { prefix + "_owner" }
    public var all: [String] { [reader, operatorRole, service, owner] }

    /// Tables the service role may not change: what only an operator does by hand.
    public static let operatorOnlyTables: Set<String> = ["grants", "revocations", "transfers", "renewal_extensions",
                                                         "test_notifications", "notification_fetches",
                                                         "customer_notes", "personal_digest_keys"]
    /// Tables only the owner changes.
    public static let ownerOnlyTables: Set<String> = ["schema_migrations"]

    /// `prefix`: lower-case letters, digits and `_`, starting with a letter, at most 40 characters.
    public init(prefix: String) throws {
        guard let first = prefix.unicodeScalars.first, (97...122).contains(first.value), prefix.count <= 40,
              prefix.unicodeScalars.allSatisfy({ (97...122).contains($0.value) || (48...57).contains($0.value) || $0 == "_" }) else {
            throw StoreError(.invalidInput, "role prefix '\(prefix.prefix(60))' must be lower-case letters, digits and _, start with a letter, at most 40 characters")
        }
        self.prefix = prefix
    }

    /// Creates the roles that are missing and (re)grants their rights on the current schema's
    /// tables and sequences: run it after `db init`, and again after `db migrate` adds tables.
    /// Moves the schema's tables and sequences to the owner role, so its members can migrate.
    /// Needs a superuser, or a role that owns the tables and may create roles. Returns one line
    /// per thing done.
    public func apply(on database: PostgresDatabase) throws -> [String] {
        guard try MigrationRunner.hasSchemaTable(database) else {
            throw StoreError(.cannotOpen, "no receiptdesk database at \(database.location): run `receiptdesk db init` first")
        }
        try MigrationRunner.requireCurrent(database)
        return try database.writeTransaction {
            try database.lockWriters()
            var done: [String] = []
            let schema = try database.queryFirst("SELECT current_schema() AS name", [])?.string("name") ?? "public"
            let quotedSchema = Self.quote(schema)
            for role in all {
                let exists = try database.queryFirst("SELECT 1 AS found FROM pg_roles WHERE rolname = ?", [.text(role)]) != nil
                if !exists {
                    try database.execute("CREATE ROLE \(role) NOLOGIN", [])
                    done.append("created role \(role)")
                }
            }
            let tables = try database.query("""
                SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename
                """, []).compactMap { $0.string("name") }
            let sequences = try database.query("""
                SELECT sequencename AS name FROM pg_sequences WHERE schemaname = current_schema() ORDER BY sequencename
                """, []).compactMap { $0.string("name") }
            try database.execute("GRANT USAGE ON SCHEMA \(quotedSchema) TO \(all.joined(separator: ", "))", [])
            try database.execute("REVOKE CREATE ON SCHEMA \(quotedSchema) FROM \(reader), \(operatorRole), \(service)", [])
            try database.execute("GRANT CREATE ON SCHEMA \(quotedSchema) TO \(owner)", [])
            for table in tables {
                let name = quotedSchema + "." + Self.quote(table)
                try database.execute("ALTER TABLE \(name) OWNER TO \(owner)", [])
                try database.execute("REVOKE ALL ON \(name) FROM PUBLIC, \(reader), \(operatorRole), \(service)", [])
                try database.execute("GRANT SELECT ON \(name) TO \(reader), \(operatorRole), \(service)", [])
                if Self.ownerOnlyTables.contains(table) { continue }
                if table == "audit_log" {
                    try database.execute("GRANT INSERT ON \(name) TO \(operatorRole), \(service)", [])
                    continue
                }
                try database.execute("GRANT INSERT, UPDATE, DELETE ON \(name) TO \(operatorRole)", [])
                if !Self.operatorOnlyTables.contains(table) {
                    try database.execute("GRANT INSERT, UPDATE, DELETE ON \(name) TO \(service)", [])
                }
            }
            for sequence in sequences {
                let name = quotedSchema + "." + Self.quote(sequence)
                try database.execute("ALTER SEQUENCE \(name) OWNER TO \(owner)", [])
                try database.execute("GRANT USAGE, SELECT ON SEQUENCE \(name) TO \(operatorRole), \(service)", [])
            }
            let functions = try database.query("""
                SELECT p.oid::regprocedure::text AS signature FROM pg_proc p
                WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND p.proname LIKE 'receiptdesk%'
                """, []).compactMap { $0.string("signature") }
            for function in functions { try database.execute("ALTER FUNCTION \(function) OWNER TO \(owner)", []) }
            done.append("granted \(reader) SELECT, \(operatorRole) and \(service) their changes on \(tables.count) tables of schema \(schema); \(owner) owns them")
            try installAppendOnlyAudit(database, schema: quotedSchema)
            done.append("audit_log is append-only for every role but \(owner) (no UPDATE, DELETE or TRUNCATE granted; a trigger refuses them)")
            return done
        }
    }

    /// The trigger that refuses UPDATE, DELETE and TRUNCATE on the audit log to anyone whose
    /// login is not a member of the owner role (superusers are members of every role).
    private func installAppendOnlyAudit(_ database: PostgresDatabase, schema: String) throws {
        let function = "\(schema).receiptdesk_audit_append_only"
        try database.execute("""
            CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $body$
            BEGIN
                IF NOT pg_has_role(session_user, '\(owner)', 'MEMBER') THEN
                    RAISE EXCEPTION 'audit_log is append-only: % by % refused (only members of \(owner) may change or remove entries)',
                        TG_OP, session_user USING ERRCODE = 'insufficient_privilege';
                END IF;
                IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
                RETURN NEW;
            END
            $body$
            """, [])
        try database.execute("ALTER FUNCTION \(function)() OWNER TO \(owner)", [])
        try database.execute("""
            CREATE OR REPLACE TRIGGER receiptdesk_audit_append_only BEFORE UPDATE OR DELETE ON \(schema).audit_log
            FOR EACH ROW EXECUTE FUNCTION \(function)()
            """, [])
        try database.execute("""
            CREATE OR REPLACE TRIGGER receiptdesk_audit_no_truncate BEFORE TRUNCATE ON \(schema).audit_log
            FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
            """, [])
    }

    /// An identifier quoted for SQL (`"name"`, inner quotes doubled).
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
