import ConsoleUI
import Foundation
import PurchaseStore
import ReceiptCore
import StoreSimulator

/// The console's key handling: input bytes become key events (the way ConsoleCurses' key reader
/// makes them, plus resize, mouse and function keys from marker bytes), each fed to a
/// `ConsoleController` and drawn on a `VirtualScreen`. Every input starts from the same small ledger
/// (`ConsoleFuzzWorld`), writable or read-only (first byte), with a fake Apple that answers at once.
enum FuzzTarget {
    static func run(_ bytes: [UInt8]) {
        guard let template = ConsoleFuzzWorld.template else { preconditionFailure("console fuzz: no template ledger (see above)") }
        let readOnly = (bytes.first ?? 0) & 1 == 1
        let keys = ConsoleKeyBytes.events(Array(bytes.dropFirst()), limit: 160)
        do {
            try ConsoleFuzzWorld.withLedger(copyOf: template) { ledger in
                let environment = ConsoleEnvironment(ledger: ledger, apple: ConsoleFuzzWorld.apple, operatorName: "fuzz", readOnly: readOnly,
                                                     databaseLabel: "fuzz.sqlite", clock: { ConsoleFuzzWorld.now })
                var size = ScreenSize(rows: 24, columns: 80)
                let controller = ConsoleController(environment: environment, size: size)
                let screen = VirtualScreen(size: size)
                for (index, key) in keys.enumerated() {
                    switch key {
                    case .key(.resize(let newSize)):
                        size = newSize
                        screen.resize(newSize)
                        controller.handle(.resize(newSize))
                    case .key(let event):
                        controller.handle(event)
                    case .settle:
                        controller.waitUntilIdle(timeout: 5)
                    }
                    // Drawing costs most of an execution (an 80×24 frame, instrumented, takes longer
                    // than eight keys): draw after every eighth key, and the final state.
                    if index % 8 == 7 { controller.render(on: screen) }
                    if controller.isFinished { break }
                }
                controller.render(on: screen)
                controller.waitUntilIdle(timeout: 5)
                controller.shutdown()
            }
        } catch {
            // A failure to copy or open the template is the harness's problem, not a finding.
            FileHandle.standardError.write(Data("console fuzz setup: \(error)\n".utf8))
        }
    }

    static func seeds() throws -> [[UInt8]] {
        let sessions = ["\u{0}jjjj\r\t\tjj\rkk q", "\u{0}/alice\r\r\u{1B}[Bq", "\u{0}g\rpro\t2025-07-01\tgoodwill\r\ry",
                        "\u{1}rR\u{1E}?\u{1B}\u{1B}:reverify\r\u{1E}q", "\u{0}\u{1C}\u{01}\u{05}\u{0A}\u{1C}\u{02}\u{05}\u{0A}\u{1F}\u{02}\u{1F}\u{03}\u{1D}\u{01}",
                        "\u{0}\u{1A}\u{02}\u{03}jjjjj\u{1A}\u{7F}\u{7F}jj\u{1A}\u{18}\u{50}x\rreason\r", "\u{0}\t\t\t\t\tjjj\r\u{1B}[5~\u{1B}[6~\u{1B}OH"]
        return sessions.map { Array($0.utf8) }
    }
}
