import Foundation

/// A test-only stop for crash tests: with RECEIPTDESK_TEST_HOLD_FILE=PATH and
/// RECEIPTDESK_TEST_HOLD_AT_ITEM=N in the environment, `receiptdesk import` writes PATH once its
/// N-th file (0-based) is written inside the open write transaction, then waits there until it is
/// killed. The test kills it once PATH exists: a kill at a known point, on a machine of any speed.
/// Without both variables nothing changes.
enum TestHold {
    static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ((Int) -> Void)? {
        guard let path = environment["RECEIPTDESK_TEST_HOLD_FILE"], !path.isEmpty,
              let text = environment["RECEIPTDESK_TEST_HOLD_AT_ITEM"], let item = Int(text), item >= 0 else { return nil }
        return { index in
            guard index == item else { return }
            guard FileManager.default.createFile(atPath: path, contents: Data("\(getpid())\n".utf8)) else {
                // The test would wait for the file in vain: end now, loudly, without committing.
                FileHandle.standardError.write(Data("receiptdesk: test hold: cannot write \(path)\n".utf8))
                exit(70)
            }
            while true { pause() }  // until the test's SIGKILL
        }
    }
}
