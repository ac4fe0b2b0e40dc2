import AppStoreAPI
import Foundation
import PurchaseStore
import ReceiptCore

/// `receiptdesk notifications fetch --since DATE [--until DATE]` (Get Notification History: what
/// Apple sent over a period, applied once per notificationUUID, resumable), `notifications test`
/// (Request a Test Notification) and `notifications test-status TOKEN`.
enum NotificationsCommand {
    static func run(_ arguments: [String]) throws -> ExitStatus {
        guard let sub = arguments.first else { throw CommandFailure.usage("notifications needs a subcommand: fetch, test or test-status") }
        var args = Arguments(Array(arguments.dropFirst()))
        let options = try StoreOptions.take(&args)
        switch sub {
        case "fetch": return try fetch(&args, options)
        case "test": return try test(&args, options)
        case "test-status": return try testStatus(&args, options)
        default: throw CommandFailure.usage("unknown notifications subcommand '\(sub)': use fetch, test or test-status")
        }
    }

    private static func fetch(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let now = Date()
        guard let since = try dateOption(try args.value("--since"), "--since") else {
            throw CommandFailure.usage("notifications fetch needs --since DATE (Apple keeps 180 days)")
        }
        let givenUntil = try dateOption(try args.value("--until"), "--until")
        let until = givenUntil ?? now
        let environment = try storeEnvironment(try args.value("--environment"))
        _ = try args.finish(maxPositionals: 0)
        guard since < until else { throw CommandFailure.usage("--since \(RFC3339.format(since)) is not before --until \(RFC3339.format(until))") }
        let session = try AppleActionSession(options, command: "notifications fetch")
        defer { session.close() }
        let actions = session.actions, operatorName = options.operatorName, quiet = options.json
        fflush(nil)  // what was printed comes before the progress lines
        let result = try session.run {
            try await actions.fetchNotificationHistory(start: since, end: until, openEnded: givenUntil == nil, environment: environment, operatorName: operatorName) { fetch in
                if !quiet { FileHandle.standardOutput.write(Data("page \(fetch.pages): \(fetch.seen) read, \(fetch.applied) new\n".utf8)) }
            }
        }
        let fetch = result.fetch
        if options.json {
            print(JSONValue.object([("fetchId", .int(fetch.fetchId)), ("environment", .string(fetch.environment)),
                                    ("pages", .int(fetch.pages)), ("seen", .int(fetch.seen)), ("applied", .int(fetch.applied)),
                                    ("status", .string(fetch.status)), ("problems", .array(result.problems.map { .string($0) }))]).serialized())
        } else {
            print("notification history \(RFC3339.format(fetch.startDate)) – \(RFC3339.format(fetch.endDate)) (\(environment.rawValue.lowercased())): \(Plural.of(fetch.seen, "notification")) in \(Plural.of(fetch.pages, "page")), \(fetch.applied) new, \(fetch.seen - fetch.applied) already applied")
            result.problems.forEach { print("problem: \($0)") }
            if fetch.endDate < until {
                print("resumed fetch #\(fetch.fetchId), interrupted earlier, over its own period: run it again for what came after \(RFC3339.format(fetch.endDate))")
            }
        }
        return result.problems.isEmpty ? .ok : .verificationFailed
    }

    private static func test(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let environment = try storeEnvironment(try args.value("--environment"))
        _ = try args.finish(maxPositionals: 0)
        let session = try AppleActionSession(options, command: "notifications test")
        defer { session.close() }
        let actions = session.actions, operatorName = options.operatorName
        let token = try session.run { try await actions.requestTestNotification(environment: environment, operatorName: operatorName) }
        let status = try session.run { try await actions.testNotificationStatus(token: token, environment: environment) }
        print(options.json ? statusJSON(token, status).serialized() : "test notification \(token): \(status.lastResult)")
        return .ok
    }

    private static func testStatus(_ args: inout Arguments, _ options: StoreOptions) throws -> ExitStatus {
        let environment = try storeEnvironment(try args.value("--environment"))
        guard let token = try args.finish(maxPositionals: 1).first else { throw CommandFailure.usage("notifications test-status needs TOKEN") }
        let session = try AppleActionSession(options, command: "notifications test-status")
        defer { session.close() }
        let actions = session.actions
        let status = try session.run { try await actions.testNotificationStatus(token: token, environment: environment) }
        if options.json {
            print(statusJSON(token, status).serialized())
        } else {
            print("test notification \(token): \(status.lastResult)")
            for attempt in status.sendAttempts { print("  \(attempt.attemptDate.map(RFC3339.format) ?? "?")  \(attempt.result)") }
        }
        return .ok
    }

    private static func statusJSON(_ token: String, _ status: TestNotificationStatus) -> JSONValue {
        .object([("token", .string(token)), ("lastResult", .string(status.lastResult)),
                 ("sendAttempts", .array(status.sendAttempts.map {
                     .object([("attemptDate", .string($0.attemptDate.map(RFC3339.format))), ("result", .string($0.result))])
                 }))])
    }
}
