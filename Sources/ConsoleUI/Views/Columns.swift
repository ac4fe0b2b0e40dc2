import Foundation

/// Fixed-width columns of styled text: each cell is cut (with "…") or padded to its width by
/// display columns, so double-width names never push the next column.
enum Columns {
    /// A cell: its content and width (nil: shares what the fixed cells leave).
    struct Cell {
        var content: StyledLine
        var width: Int?
        var alignRight = false

        init(_ content: StyledLine, _ width: Int?, right: Bool = false) {
            self.content = content
            self.width = width
            alignRight = right
        }

        init(_ text: String, _ style: CellStyle = .plain, _ width: Int?, right: Bool = false) {
            self.init([Span(text, style)], width, right: right)
        }
    }

    /// The cells laid out in `total` columns, one space apart; exactly `total` wide.
    static func layout(_ cells: [Cell], total: Int) -> StyledLine {
        let fixed = cells.compactMap(\.width).reduce(0, +) + max(0, cells.count - 1)
        let flexible = cells.filter { $0.width == nil }.count
        let share = flexible > 0 ? max(1, (total - fixed) / flexible) : 0
        var line: StyledLine = []
        for (index, cell) in cells.enumerated() {
            if index > 0 { line.append(Span(" ")) }
            line += fit(cell.content, to: cell.width ?? share, alignRight: cell.alignRight)
        }
        return fit(line, to: total)
    }

    /// A styled line cut or padded to exactly `width` columns.
    static func fit(_ line: StyledLine, to width: Int, alignRight: Bool = false) -> StyledLine {
        guard width > 0 else { return [] }
        let full = line.width
        if full <= width {
            let pad = Span(String(repeating: " ", count: width - full))
            return alignRight ? [pad] + line : line + [pad]
        }
        var out: StyledLine = []
        var used = 0
        for span in line {
            let room = width - 1 - used
            if room <= 0 { break }
            if span.width <= room {
                out.append(span)
                used += span.width
            } else {
                let cut = DisplayWidth.truncate(span.text, to: room, ellipsis: false)
                out.append(Span(cut, span.style))
                used += DisplayWidth.of(cut)
                break
            }
        }
        out.append(Span("…" + String(repeating: " ", count: max(0, width - 1 - used)), line.last?.style ?? .plain))
        return out
    }

    /// A styled line broken at spaces into lines of at most `width` columns (styles kept;
    /// continuation lines indented by `indent`).
    static func wrap(_ line: StyledLine, width: Int, indent: Int = 2) -> [StyledLine] {
        guard line.width > width, width > indent + 8 else { return [line] }
        var pieces: [Span] = []
        for span in line {
            var word = ""
            for character in span.text {
                word.append(character)
                if character == " " {
                    pieces.append(Span(word, span.style))
                    word = ""
                }
            }
            if !word.isEmpty { pieces.append(Span(word, span.style)) }
        }
        var lines: [StyledLine] = []
        var current: StyledLine = []
        for piece in pieces {
            if current.width + DisplayWidth.of(piece.text.trimmingCharacters(in: .whitespaces)) > width, current.width > indent {
                lines.append(current)
                current = [Span(String(repeating: " ", count: indent))]
            }
            current.append(piece)
        }
        if !current.isEmpty { lines.append(current) }
        // A line's last word keeps the space after it: where that space alone overflows, it goes
        // (else the word would be cut to make room for it).
        return lines.map { fit($0.width > width ? trimmingTrailingSpaces($0) : $0, to: width) }
    }

    /// The line without the spaces it ends with.
    static func trimmingTrailingSpaces(_ line: StyledLine) -> StyledLine {
        var line = line
        while let last = line.last {
            let kept = String(last.text.reversed().drop { $0 == " " }.reversed())
            if kept.isEmpty { line.removeLast(); continue }
            line[line.count - 1] = Span(kept, last.style)
            break
        }
        return line
    }

    /// The line with every span's style changed by `transform` (selection highlighting).
    static func restyle(_ line: StyledLine, _ transform: (CellStyle) -> CellStyle) -> StyledLine {
        line.map { Span($0.text, transform($0.style)) }
    }
}
