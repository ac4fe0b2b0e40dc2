import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// The C functions libmicrohttpd calls, each a non-capturing closure that finds the
/// `ServerCore` behind its closure pointer (retained by `HTTPServer` while the daemon runs) and
/// hands over in Swift types. Nothing here throws or traps on what a client sent.
enum MHDCallbacks {
    /// MHD_AccessHandlerCallback.
    static let access: MHD_AccessHandlerCallback = { cls, connection, url, method, version, upload, uploadSize, slot in
        guard let cls, let connection, let uploadSize, let slot else { return MHD_Result.NO }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.access(connection, method: method.map { String(cString: $0) } ?? "",
                           path: url.map { String(cString: $0) } ?? "",
                           version: version.map { String(cString: $0) } ?? "",
                           upload: upload, uploadSize: uploadSize, slot: slot)
    }

    /// MHD_RequestCompletedCallback.
    static let completed: MHD_RequestCompletedCallback = { cls, connection, slot, termination in
        guard let cls else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        core.completed(connection, slot: slot, delivered: termination == .REQUEST_TERMINATED_COMPLETED_OK)
    }

    /// MHD_NotifyConnectionCallback.
    static let connection: MHD_NotifyConnectionCallback = { cls, connection, _, event in
        guard let cls, let connection else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        switch event {
        case .CONNECTION_NOTIFY_STARTED: core.connection(connection, opened: true)
        case .CONNECTION_NOTIFY_CLOSED: core.connection(connection, opened: false)
        default: break
        }
    }

    /// MHD_LogCallback: formats the message (at most 1 KiB, one line) and passes it on.
    static let log: MHD_LogCallback = { cls, format, arguments in
        guard let cls, let format, let arguments else { return }
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        var buffer = [CChar](repeating: 0, count: 1024)
        let written = vsnprintf(&buffer, buffer.count, format, arguments)
        guard written >= 0 else { return }
        let length = min(Int(written), buffer.count - 1)
        let line = buffer.prefix(length).withUnsafeBufferPointer { bytes in
            String(decoding: UnsafeRawBufferPointer(bytes), as: UTF8.self)
        }
        core.logged(line.trimmingNewlines())
    }
}

private extension String {
    /// Without trailing line breaks.
    func trimmingNewlines() -> String {
        var text = Substring(self)
        while let last = text.last, last.isNewline { text = text.dropLast() }
        return String(text)
    }
}
