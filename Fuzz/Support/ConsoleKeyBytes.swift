import ConsoleUI

/// Turns fuzz bytes into console input the way ConsoleCurses' key reader does (UTF-8 characters,
/// Enter, Tab, Backspace, Ctrl-letters, ESC sequences through `KeySequenceDecoder`), plus marker
/// bytes for what a terminal reports without bytes: 0x00 resize (rows, columns follow), 0x1C mouse
/// (kind, row, column follow), 0x1D function key, 0x1F a named key, 0x1E wait for background work.
enum ConsoleKeyBytes {
    enum Input {
        case key(KeyEvent)
        case settle
    }

    static let named: [KeyEvent] = [.up, .down, .left, .right, .pageUp, .pageDown, .home, .end, .delete, .backTab, .enter, .escape]

    static func events(_ bytes: [UInt8], limit: Int) -> [Input] {
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        var result: [Input] = []
        var index = 0
        func next() -> Int {
            guard index < scalars.count else { return 0 }
            defer { index += 1 }
            return Int(scalars[index].value)
        }
        while index < scalars.count, result.count < limit {
            let value = scalars[index].value
            index += 1
            switch value {
            case 0:
                result.append(.key(.resize(ScreenSize(rows: next() % 160, columns: next() % 320))))
            case 0x1C:
                let kinds: [MouseEvent.Kind] = [.click, .wheelUp, .wheelDown]
                let kind = kinds[next() % kinds.count]
                result.append(.key(.mouse(MouseEvent(kind, row: next() - 2, column: next() - 2))))
            case 0x1D:
                result.append(.key(.function(next() % 14)))
            case 0x1E:
                result.append(.settle)
            case 0x1F:
                result.append(.key(named[next() % named.count]))
            case 27:
                var sequence = ""
                var decoded: KeyEvent?
                while sequence.unicodeScalars.count < 8, index < scalars.count, scalars[index].value != 27 {
                    sequence.unicodeScalars.append(scalars[index])
                    index += 1
                    if let key = KeySequenceDecoder.decode(sequence) { decoded = key; break }
                    if sequence.count >= 2, let last = sequence.last, last.isLetter || last == "~" { break }
                }
                if let decoded { result.append(.key(decoded)) } else if sequence.isEmpty { result.append(.key(.escape)) }
            case 10, 13: result.append(.key(.enter))
            case 9: result.append(.key(.tab))
            case 8, 127: result.append(.key(.backspace))
            case 1...26: result.append(.key(.control(Character(Unicode.Scalar(UInt8(value + 96))))))
            case 0..<32: continue
            default: result.append(.key(.character(Character(scalars[index - 1]))))
            }
        }
        return result
    }
}
