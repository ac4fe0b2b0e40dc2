import AppStoreAPI
import Benchmarks
import Foundation
import PurchaseStore
import ReceiptCore

/// Exit codes, in one place (sysexits): 0 ok, 1 verification failed, 64 usage, 65 bad input,
/// 69 service unavailable, 75 temporary failure.
enum ExitStatus: Int32 {
    case ok = 0
    case verificationFailed = 1
    case usage = 64
    case badInput = 65
    case unavailable = 69
    case temporaryFailure = 75
}

/// A failure a command reports: what to print and how to exit.
struct CommandFailure: Error {
    let status: ExitStatus
    let message: String

    static func usage(_ message: String) -> CommandFailure { CommandFailure(status: .usage, message: message) }
    static func badInput(_ message: String) -> CommandFailure { CommandFailure(status: .badInput, message: message) }

    /// Maps any error to its exit code and one-line message.
    static func from(_ error: Error) -> CommandFailure {
        switch error {
        case let failure as CommandFailure: return failure
        case let receipt as ReceiptError where receipt.code == .configuration:
            return CommandFailure(status: .usage, message: receipt.reason)
        case let receipt as ReceiptError: return CommandFailure(status: .badInput, message: receipt.reason)
        case let store as StoreError:
            switch store.code {
            case .busy: return CommandFailure(status: .temporaryFailure, message: store.reason)
            case .cannotOpen, .schemaTooNew, .corrupt: return CommandFailure(status: .unavailable, message: store.reason)
            case .invalidInput: return CommandFailure(status: .usage, message: store.reason)
            case .notVerified, .auditBroken: return CommandFailure(status: .verificationFailed, message: store.reason)
            default: return CommandFailure(status: .badInput, message: store.reason)
            }
        case let apple as AppStoreError:
            switch apple.code {
            case .configuration: return CommandFailure(status: .usage, message: apple.reason)
            case .appleError where !apple.isTemporary:
                return CommandFailure(status: .badInput, message: "Apple refused: \(apple.reason)")
            default: return CommandFailure(status: apple.isTemporary ? .temporaryFailure : .unavailable, message: "Apple: \(apple.reason)")
            }
        case let bench as BenchmarkError:
            switch bench.code {
            case .usage: return CommandFailure(status: .usage, message: bench.reason)
            case .unavailable: return CommandFailure(status: .unavailable, message: bench.reason)
            case .inputNotValid, .notAsDesigned: return CommandFailure(status: .badInput, message: bench.reason)
            }
        default: return CommandFailure(status: .badInput, message: "\(error)")
        }
    }
}
