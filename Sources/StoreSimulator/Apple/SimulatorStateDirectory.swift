import Foundation
import ReceiptCore

/// A directory holding everything a simulator needs to come back as it was, so a demo database
/// made through it can be re-verified in a later run:
///
///     DIR/authority/…     the test authority (`TestCertificateAuthority.save(to:)`)
///     DIR/state.json      the records (`SimulatorState.save(to:)`)
///     DIR/state.lock      the lock every process holds while it reads, changes and saves the
///                         records (`SimulatorStateFileLock`), and the generation of the last save
///
/// Neither the shared secret nor the Server API key is kept here. A state opened here reads and
/// saves state.json under the lock in each `SimulatorState.change` (every change a Server API
/// request makes is one), so processes sharing the directory see each other's changes.
public enum SimulatorStateDirectory {
    /// The authority's sub-directory.
    public static let authorityFolder = "authority"
    /// The records' file name.
    public static let stateFile = "state.json"
    /// Validity start of an authority made here: 2008-01-01, so receipts of the iOS 6 era verify.
    public static let validFrom = CivilTime(year: 2008, month: 1, day: 1).date
    /// Validity end of an authority made here: 2045-01-01.
    public static let validUntil = CivilTime(year: 2045, month: 1, day: 1).date

    /// The state saved in `directory`; when nothing is saved there yet, a new authority (valid
    /// 2008–2045, about a second of key generation) and empty records for `bundleId`, saved at once.
    /// Reads (or makes) it under the directory's lock, so processes opening a new directory at
    /// the same moment end up with one authority.
    /// With `loadingInBackground`, saved records load on a thread of their own and whatever uses
    /// them waits for that (`SimulatorState.loadInBackground`): a console starts at once. With
    /// `deferringLoad` too, that thread starts only at `SimulatorState.beginDeferredLoad()` or
    /// when the records are first needed.
    public static func open(_ directory: URL, bundleId: String = "com.example.receiptdesk",
                            appAppleId: Int64 = 1_234_567_890, loadingInBackground: Bool = false,
                            deferringLoad: Bool = false) throws -> SimulatorState {
        let authorityDirectory = directory.appendingPathComponent(authorityFolder)
        let stateURL = directory.appendingPathComponent(stateFile)
        let fileLock = try SimulatorStateFileLock.acquire(directory: directory)
        defer { fileLock.release() }
        let state: SimulatorState
        if FileManager.default.fileExists(atPath: authorityDirectory.appendingPathComponent("authority.json").path) {
            state = SimulatorState(authority: try TestCertificateAuthority.load(from: authorityDirectory),
                                   bundleId: bundleId, appAppleId: appAppleId)
            state.autosaveFile = stateURL
            if loadingInBackground {
                state.loadInBackground(stateURL, deferred: deferringLoad)
            } else {
                try state.changeLock.withLock { try state.catchUp(with: stateURL, holding: fileLock) }
            }
        } else {
            let authority = try TestCertificateAuthority.make(validFrom: validFrom, validUntil: validUntil)
            state = SimulatorState(authority: authority, bundleId: bundleId, appAppleId: appAppleId)
            state.autosaveFile = stateURL
            try save(state, to: directory, holding: fileLock)
        }
        return state
    }

    /// Saves the authority and the records into `directory`, under its lock, over whatever
    /// state.json holds: to change records other processes may be changing too, use
    /// `SimulatorState.change` instead, which reads their changes first.
    public static func save(_ state: SimulatorState, to directory: URL) throws {
        let fileLock = try SimulatorStateFileLock.acquire(directory: directory)
        defer { fileLock.release() }
        try save(state, to: directory, holding: fileLock)
    }

    private static func save(_ state: SimulatorState, to directory: URL, holding fileLock: SimulatorStateFileLock) throws {
        try state.authority.save(to: directory.appendingPathComponent(authorityFolder))
        let stateURL = directory.appendingPathComponent(stateFile)
        try state.changeLock.withLock {
            try state.write(to: stateURL, holding: fileLock)
            // Only the file the state changes through may count as the version it has seen.
            if state.autosaveFile?.standardizedFileURL != stateURL.standardizedFileURL { state.seenVersion = nil }
        }
    }
}
