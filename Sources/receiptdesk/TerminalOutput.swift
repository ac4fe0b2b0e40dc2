import Foundation
import ReceiptCore

/// Everything the command line prints goes through here. Text that came from data (ids, reasons,
/// decoded fields, Apple's messages) may hold control, bidirectional or zero-width characters
/// that would drive the operator's terminal (OSC 52 writes the clipboard, ESC[2J clears the
/// screen); they are written visibly (`\u{1b}`), as git and ls do, in text output. JSON output
/// needs nothing more: its serializer already writes every such character as `\uXXXX`.
///
/// This `print` shadows the standard library's within the command-line target.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { "\($0)" }.joined(separator: separator)
    Swift.print(UnsafeText.escaped(text), terminator: terminator)
}

/// Writes a line to standard error, escaped as `print` escapes.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((UnsafeText.escaped(text) + "\n").utf8))
}
