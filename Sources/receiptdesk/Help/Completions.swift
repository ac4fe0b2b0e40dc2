/// `receiptdesk completions bash|zsh|fish`: shell completion scripts written from `CommandTable`
/// (command words, then the options of the command typed so far; files elsewhere).
enum Completions {
    /// The script for `shell`, or nil for a shell it does not know.
    static func script(for shell: String) -> String? {
        switch shell {
        case "bash": return bash
        case "zsh": return zsh
        case "fish": return fish
        default: return nil
        }
    }

    static var visible: [CommandSpec] { CommandTable.all.filter { !$0.hidden } }

    /// For each path prefix ("" for none), the words that may follow it.
    static var nextWords: [(prefix: String, words: [String])] {
        var table: [String: [String]] = [:]
        var order: [String] = []
        for spec in visible {
            let words = spec.words
            for index in words.indices {
                let prefix = words[..<index].joined(separator: " ")
                if table[prefix] == nil { order.append(prefix) }
                if !(table[prefix] ?? []).contains(words[index]) { table[prefix, default: []].append(words[index]) }
            }
        }
        return order.map { ($0, table[$0] ?? []) }
    }

    /// Every option that takes a value (its value is not a command word).
    static var valued: [String] {
        Array(Set(CommandTable.all.flatMap(\.allOptions).filter { $0.value != nil }.map(\.name))).sorted()
    }

    /// The shell-side loop shared by bash and zsh: `cmd` becomes the command words typed so far.
    static func wordsLoop(first: Int, current: String, word: String) -> String {
        """
          local valued=" \(valued.joined(separator: " ")) " cmd="" skip=0 i w
          for ((i=\(first); i<\(current); i++)); do
            w="\(word)"
            if [ $skip = 1 ]; then skip=0; continue; fi
            case "$w" in
              -*=*) ;;
              -*) case "$valued" in *" $w "*) skip=1;; esac ;;
              *) cmd="${cmd:+$cmd }$w" ;;
            esac
          done
        """
    }

    static func caseArms(indent: String) -> String {
        var arms: [String] = []
        for spec in visible.sorted(by: { $0.words.count > $1.words.count }) {
            let options = spec.allOptions.map(\.name).joined(separator: " ")
            arms.append("\(indent)\"\(spec.path)\"|\"\(spec.path) \"*) opts=\"\(options)\" ;;")
        }
        var subs: [String] = []
        for (prefix, words) in nextWords {
            subs.append("\(indent)\"\(prefix)\") subs=\"\(words.joined(separator: " "))\" ;;")
        }
        return "  case \"$cmd\" in\n" + subs.joined(separator: "\n") + "\n  esac\n  case \"$cmd\" in\n" + arms.joined(separator: "\n") + "\n  esac"
    }

    static var bash: String {
        """
        # bash completion for receiptdesk \(CommandTable.version) (receiptdesk completions bash)
        _receiptdesk() {
          local cur="${COMP_WORDS[COMP_CWORD]}" opts="" subs=""
        \(wordsLoop(first: 1, current: "COMP_CWORD", word: "${COMP_WORDS[i]}"))
        \(caseArms(indent: "    "))
          if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "$opts" -- "$cur"))
          elif [ -n "$subs" ]; then
            COMPREPLY=($(compgen -W "$subs" -- "$cur"))
          fi
        }
        complete -o default -F _receiptdesk receiptdesk

        """
    }

    static var zsh: String {
        """
        #compdef receiptdesk
        # zsh completion for receiptdesk \(CommandTable.version) (receiptdesk completions zsh)
        _receiptdesk() {
          local opts="" subs=""
        \(wordsLoop(first: 2, current: "CURRENT", word: "${words[i]}"))
        \(caseArms(indent: "    "))
          if [[ "$PREFIX" == -* ]]; then
            compadd -- ${=opts}
          elif [ -n "$subs" ]; then
            compadd -- ${=subs}
          else
            _files
          fi
        }
        _receiptdesk "$@"

        """
    }

    static var fish: String {
        var lines = ["# fish completion for receiptdesk \(CommandTable.version) (receiptdesk completions fish)",
                     "complete -c receiptdesk -f"]
        let top = nextWords.first { $0.prefix.isEmpty }?.words ?? []
        lines.append("complete -c receiptdesk -n '__fish_use_subcommand' -a '\(top.joined(separator: " "))'")
        for (prefix, words) in nextWords where !prefix.isEmpty {
            let seen = prefix.split(separator: " ").map { "__fish_seen_subcommand_from \($0)" }.joined(separator: "; and ")
            lines.append("complete -c receiptdesk -n '\(seen)' -a '\(words.joined(separator: " "))'")
        }
        for spec in visible {
            let seen = spec.words.map { "__fish_seen_subcommand_from \($0)" }.joined(separator: "; and ")
            for option in spec.allOptions {
                let help = option.help.replacingOccurrences(of: "'", with: "\\'")
                lines.append("complete -c receiptdesk -n '\(seen)' -l \(option.name.dropFirst(2))\(option.value == nil ? "" : " -r -F") -d '\(help)'")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
