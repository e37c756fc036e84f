// Importing files and folders into the library (issue 18): incremental
// (unchanged files are not read again; content already catalogued is not
// imported twice), Live pairs as one asset, crash-safe (copy to a staging
// name, rename into place, sync, then commit the catalogue rows; the
// recovery pass removes what a killed import left behind).
import Foundation
import ShiyingCore

/// What an import did.
public struct LibraryImportReport: Sendable, Codable, Hashable {
    /// A file that was not imported.
    public struct Skipped: Sendable, Codable, Hashable {
        /// The file's path.
        public var path: String
        /// Why it was skipped.
        public var error: String
    }

    /// New assets, in import order.
    public var imported: [Int64] = []
    /// Photos imported.
    public var photos = 0
    /// Live photos imported.
    public var lives = 0
    /// Videos imported.
    public var videos = 0
    /// A movie or still that completed a Live photo already catalogued.
    public var completedLive = 0
    /// Files whose size and modification time match their last import: not read.
    public var unchanged = 0
    /// Files whose content is already catalogued: recorded as a source, nothing copied.
    public var duplicates = 0
    /// Catalogued originals that had gone from the library folder (removed by
    /// hand), put back from a file with their content.
    public var restored = 0
    /// Assets in Recently Deleted whose content was imported again: brought
    /// back to the library (the user wants the photo), not counted as duplicates.
    public var undeleted: [Int64] = []
    /// Files the reader could not read (named, with the reason).
    public var skipped: [Skipped] = []
    /// What the recovery pass before the import cleaned up.
    public var recovery = LibraryRecoveryReport()
    /// Wall-clock seconds the job took.
    public var seconds = 0.0
}

extension PhotoLibrary {
    /// Files and folders (recursively; hidden files and the library's own
    /// folder left out) that an import would consider, sorted.
    public nonisolated func candidates(_ paths: [String]) throws -> [String] {
        var found: [String] = []
        for path in paths {
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDir) else {
                throw LibraryError(.io, "\(path): no such file or folder")
            }
            if !isDir.boolValue {
                // A FIFO, socket or device named on purpose is read (and refused by name, a skip), not passed
                // over in silence as a file of another type would be.
                var st = stat()
                let special = stat(absolute, &st) == 0 && st.st_mode & S_IFMT != S_IFREG
                if LibraryFileTypes.isMedia(absolute) || special { found.append(absolute) }
                continue
            }
            if absolute == folder.root || absolute.hasPrefix(folder.root + "/") { continue }
            let walker = FileManager.default.enumerator(atPath: absolute)
            while let rel = walker?.nextObject() as? String {
                let full = absolute + "/" + rel
                if full == folder.root {
                    walker?.skipDescendants()
                    continue
                }
                if rel.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                let isFile = (walker?.fileAttributes?[.type] as? FileAttributeType) == .typeRegular
                if isFile && LibraryFileTypes.isMedia(rel) { found.append(full) }
            }
        }
        return Array(Set(found)).sorted()
    }

    /// Imports `paths` (files or folders). Files are read first; then, under
    /// the library's file lock, the recovery pass runs and the new assets are placed.
    ///
    /// Work: one `stat` per file; files not seen before (or changed) are
    /// hashed, read by `reader` and — unless their content is already
    /// catalogued — copied to a staging name, on up to 4 worker threads (the
    /// copy while the bytes are in the page cache). Then, under the lock, in
    /// batches of `batchSize` assets: rename into originals/YYYY/MM/, sync
    /// (`syncfs`), commit one catalogue transaction. A kill at any point
    /// leaves the committed batches plus files the next recovery pass removes.
    /// - Parameters:
    ///   - paths: files and folders to import (folders are walked).
    ///   - reader: reads each file's facts (size, date, place, Live identifier).
    ///   - batchSize: assets committed per catalogue transaction.
    ///   - progress: one `ShiyingProgress` for the whole import, from any
    ///     thread: phase `"read"` while the workers hash, read and stage files,
    ///     `"import"` while the batches are committed, then `"done"` (fraction 1).
    /// - Throws: `LibraryError` (a path that does not exist, a copy or catalogue
    ///   failure — D4); `CancellationError` when the task is cancelled. Cancelling
    ///   while files are read stops the workers between files, removes their staged
    ///   copies and leaves the catalogue as it was; cancelling while batches are
    ///   committed stops before the next batch (the committed ones stay, as after a kill).
    public func importFiles(_ paths: [String], reader: some LibraryMediaReader, batchSize: Int = 256,
                            progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> LibraryImportReport {
        let start = ContinuousClock.now
        let meter = ProgressMeter.make(.libraryImport, progress)
        let all = try candidates(paths)
        var report = LibraryImportReport()
        var known: [String: (bytes: Int64, mtimeNs: Int64, sha256: String)] = [:]
        try store.forEachRow("SELECT path, bytes, mtime_ns, sha256 FROM library_sources") { c in
            known[c.text(0) ?? ""] = (c.int64(1), c.int64(2), c.text(3) ?? "")
        }
        // Originals gone from the folder: a source with their content is read
        // again (unchanged or not) and puts them back.
        let lost = try lostOriginals()
        var toRead: [(path: String, bytes: Int64, mtimeNs: Int64)] = []
        for path in all {
            guard let st = LibraryFolder.status(path) else {
                report.skipped.append(.init(path: path, error: "cannot be read"))
                continue
            }
            if let seen = known[path], seen.bytes == st.bytes, seen.mtimeNs == st.mtimeNs, lost[seen.sha256] == nil {
                report.unchanged += 1
            } else {
                toRead.append((path, st.bytes, st.mtimeNs))
            }
        }
        let outcomes = try await Self.readAll(toRead.map(\.path), reader: reader, staging: folder,
                                          catalogued: try cataloguedDigests().keys.filter { lost[$0] == nil },
                                          progress: meter)
        var files: [ImportFile] = []
        for (n, outcome) in outcomes.enumerated() {
            switch outcome {
            case .success(let read):
                files.append(ImportFile(path: toRead[n].path, mtimeNs: toRead[n].mtimeNs, digest: read.digest,
                                        facts: read.facts, staged: read.staged))
            case .failure(let error):
                report.skipped.append(.init(path: toRead[n].path, error: "\(error)"))
            }
        }
        defer {  // copies a failure or a duplicate left unused
            for file in files { if let staged = file.staged { unlink(staged) } }
        }
        // From here on no suspension point: the actor runs the locked part
        // through, so no other call of this library interleaves with it.
        let lock = try LibraryFileLock(folder)
        defer { lock.release() }
        report.recovery = try recover()
        let plan = try planUnits(files, lost: lost)
        report.duplicates = plan.duplicates.count + plan.aliases.values.reduce(0) { $0 + $1.count }
        try recordDuplicates(plan.duplicates)
        report.restored = try restore(plan.restores)
        // content the user deleted and now imports again: out of Recently Deleted (after the lock, which
        // `restore(_:)` takes itself)
        var deleted = Set<Int64>()
        for (_, asset) in plan.duplicates where try self.asset(asset).deletedAtMs != nil { deleted.insert(asset) }
        report.duplicates -= plan.duplicates.filter { deleted.contains($0.1) }.count
        var done: UInt64 = 0
        for batchStart in stride(from: 0, to: plan.units.count, by: max(1, batchSize)) {
            try Task.checkCancellation()  // between batches: the committed ones stay, as after a kill
            let batch = Array(plan.units[batchStart..<min(plan.units.count, batchStart + max(1, batchSize))])
            let ids = try importBatch(batch, aliases: plan.aliases)
            for (unit, id) in zip(batch, ids) {
                if unit.attachTo != nil {
                    report.completedLive += 1
                } else {
                    report.imported.append(id)
                    switch unit.kind {
                    case .photo: report.photos += 1
                    case .live: report.lives += 1
                    case .video: report.videos += 1
                    }
                }
            }
            done += UInt64(batch.count)
            meter?.report("import", done, UInt64(plan.units.count))
        }
        lock.release()
        if !deleted.isEmpty { report.undeleted = try restore(deleted.sorted()) }
        let elapsed = ContinuousClock.now - start
        report.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        meter?.finish()
        return report
    }

    /// Imports the files and folders at `urls`: `importFiles(_:reader:batchSize:progress:)` (paths)
    /// with `file:` URLs at the API edge (same work, progress and cancellation).
    /// - Throws: `LibraryError` (`.invalid`) for a URL that is not a `file:` URL,
    ///   then as the path form.
    public func importFiles(_ urls: [URL], reader: some LibraryMediaReader, batchSize: Int = 256,
                            progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> LibraryImportReport {
        let paths = try urls.map { url in
            guard url.isFileURL else { throw LibraryError(.invalid, "\(url.absoluteString): an import source must be a file URL") }
            return url.path
        }
        return try await importFiles(paths, reader: reader, batchSize: batchSize, progress: progress)
    }

    // MARK: - reading (worker threads)

    /// Digests of every catalogued original.
    func cataloguedDigests() throws -> [String: Int64] {
        var catalogued: [String: Int64] = [:]
        try store.forEachRow("SELECT sha256, asset_id FROM library_files WHERE role IN ('original', 'original_movie')") { c in
            catalogued[c.text(0) ?? ""] = c.int64(1)
        }
        return catalogued
    }

    /// One file as a worker read it: digest, facts, and (when its content was
    /// not catalogued) a copy at a staging name, made while its bytes are in
    /// the page cache.
    struct ReadFile: Sendable {
        var digest: LibraryDigest
        var facts: LibraryMediaFacts
        var staged: String?
    }

    /// Every path's digest, facts and staged copy, in order, from up to 4
    /// workers on a thread of their own (the calling task only waits).
    /// Task cancellation stops the workers between files; the copies they
    /// staged are removed and `CancellationError` is thrown.
    static func readAll(_ paths: [String], reader: some LibraryMediaReader, staging folder: LibraryFolder,
                        catalogued: some Collection<String> & Sendable,
                        progress: ProgressMeter?) async throws -> [Result<ReadFile, Error>] {
        guard !paths.isEmpty else { return [] }
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4, paths.count))
        let box = ReadResults(count: paths.count)
        let known = Set(catalogued)
        let outcomes = await withTaskCancellationHandler {
            await Self.readOnWorkers(paths, workers: workers, box: box, reader: reader, staging: folder, known: known,
                                     progress: progress)
        } onCancel: {
            box.cancel()
        }
        guard let outcomes else {
            for case .success(let read) in box.finished() { if let staged = read.staged { unlink(staged) } }
            throw CancellationError()
        }
        return outcomes
    }

    /// The workers of `readAll`: every outcome in order, or nil when cancelled.
    private static func readOnWorkers(_ paths: [String], workers: Int, box: ReadResults, reader: some LibraryMediaReader,
                                      staging folder: LibraryFolder, known: Set<String>,
                                      progress: ProgressMeter?) async -> [Result<ReadFile, Error>]? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                DispatchQueue.concurrentPerform(iterations: workers) { _ in
                    while let n = box.claim() {
                        let outcome = Result<ReadFile, Error> {
                            let digest = try reader.digest(of: paths[n]), facts = try reader.facts(of: paths[n])
                            guard !known.contains(digest.sha256) else { return ReadFile(digest: digest, facts: facts) }
                            let staged = folder.stagingPath(extension: (paths[n] as NSString).pathExtension)
                            try LibraryFolder.copy(paths[n], to: staged)
                            return ReadFile(digest: digest, facts: facts, staged: staged)
                        }
                        let done = box.finish(n, outcome)
                        progress?.report("read", UInt64(done), UInt64(paths.count))
                    }
                }
                continuation.resume(returning: box.all())
            }
        }
    }

    // MARK: - planning

    /// Groups read files into assets: Live pairs by content identifier,
    /// movies or stills completing a catalogued half, content already
    /// catalogued (duplicates) and repeated content within this import (aliases).
    func planUnits(_ files: [ImportFile], lost: [String: LibraryMissingFile] = [:]) throws -> ImportPlan {
        var plan = ImportPlan()
        let catalogued = try cataloguedDigests()
        var firstOfDigest: [String: Int] = [:]
        var fresh: [ImportFile] = []
        var restoring = Set<String>()
        for file in files {
            if let gone = lost[file.digest.sha256], file.staged != nil, restoring.insert(file.digest.sha256).inserted {
                plan.restores.append((file, gone))
            } else if let asset = catalogued[file.digest.sha256] {
                plan.duplicates.append((file, asset))
            } else if firstOfDigest[file.digest.sha256] != nil {
                plan.aliases[file.digest.sha256, default: []].append(file)
            } else {
                firstOfDigest[file.digest.sha256] = fresh.count
                fresh.append(file)
            }
        }
        var movieByID: [String: Int] = [:]
        for (n, f) in fresh.enumerated() where f.facts.medium == .movie {
            if let id = f.facts.contentIdentifier, movieByID[id] == nil { movieByID[id] = n }
        }
        var paired = Set<Int>()
        for (n, f) in fresh.enumerated() where f.facts.medium == .still {
            if let id = f.facts.contentIdentifier, let m = movieByID[id], !paired.contains(m) {
                paired.insert(m)
                paired.insert(n)
                plan.units.append(ImportUnit(still: f, movie: fresh[m]))
            }
        }
        for (n, f) in fresh.enumerated() where !paired.contains(n) {
            let still = f.facts.medium == .still
            var unit = still ? ImportUnit(still: f, movie: nil) : ImportUnit(still: nil, movie: f)
            if let id = f.facts.contentIdentifier {
                // the other half of a Live photo already catalogued as a photo or a video
                let other = still ? AssetKind.video : .photo
                unit.attachTo = try store.query("""
                    SELECT id FROM library_assets WHERE content_identifier = ? AND kind = ? AND deleted_at_ms IS NULL
                    ORDER BY id LIMIT 1
                    """, [.text(id), .text(other.rawValue)]).first?.first?.int64
            }
            plan.units.append(unit)
        }
        return plan
    }

    /// Sources whose content is already catalogued point at that asset (so
    /// the next import skips them as unchanged).
    private func recordDuplicates(_ duplicates: [(ImportFile, Int64)]) throws {
        guard !duplicates.isEmpty else { return }
        let now = clock()
        try write { s in
            for (file, asset) in duplicates { try Self.recordSource(file, asset: asset, nowMs: now, in: s) }
        }
    }

    static func recordSource(_ file: ImportFile, asset: Int64, nowMs: Int64, in s: RecordStore) throws {
        try s.execute("""
            INSERT INTO library_sources(path, bytes, mtime_ns, sha256, asset_id, imported_at_ms) VALUES (?,?,?,?,?,?)
            ON CONFLICT(path) DO UPDATE SET bytes = excluded.bytes, mtime_ns = excluded.mtime_ns,
                sha256 = excluded.sha256, asset_id = excluded.asset_id, imported_at_ms = excluded.imported_at_ms
            """, [.text(file.path), .integer(file.digest.bytes), .integer(file.mtimeNs), .text(file.digest.sha256),
                  .integer(asset), .integer(nowMs)])
    }

    // MARK: - restoring

    /// Catalogued originals (and Live movies) missing from the folder, by content digest.
    func lostOriginals() throws -> [String: LibraryMissingFile] {
        var lost: [String: LibraryMissingFile] = [:]
        var digests: [String: String] = [:]
        try store.forEachRow("SELECT path, sha256 FROM library_files WHERE role IN ('original', 'original_movie')") { c in
            digests[c.text(0) ?? ""] = c.text(1) ?? ""
        }
        for file in try missingFiles(roles: [.original, .originalMovie]) {
            if let digest = digests[file.path] { lost[digest] = file }
        }
        return lost
    }

    /// Puts staged copies back at their catalogued paths (journaled, renamed,
    /// synced, then their sources recorded); returns how many. A path that
    /// came back meanwhile is left as it is.
    private func restore(_ restores: [(file: ImportFile, gone: LibraryMissingFile)]) throws -> Int {
        let due = restores.filter { access(folder.absolute($0.gone.path), F_OK) != 0 && $0.file.staged != nil }
        guard !due.isEmpty else { return 0 }
        let paths = due.map(\.gone.path)
        var moved: [String] = []
        do {
            try journal(paths)
            for r in due {
                let target = folder.absolute(r.gone.path)
                try LibraryFolder.move(r.file.staged!, to: target)
                moved.append(target)
            }
            try folder.sync(fallback: moved)
        } catch {
            for target in moved { unlink(target) }  // catalogued but missing again, as before
            clearJournal(paths)
            throw error
        }
        let now = clock()
        try write { s in
            try Self.clearJournal(paths, in: s)
            for r in due { try Self.recordSource(r.file, asset: r.gone.assetID, nowMs: now, in: s) }
        }
        return due.count
    }

    // MARK: - one batch

    /// Places (copies not made yet), renames, syncs, commits; returns each unit's asset id.
    private func importBatch(_ units: [ImportUnit], aliases: [String: [ImportFile]]) throws -> [Int64] {
        var placed: [(unit: ImportUnit, still: String?, movie: String?)] = []
        var moves: [(staged: String, final: String)] = []
        var claimed = Set<String>()
        func place(_ file: ImportFile?, capturedAtMs: Int64?) throws -> String? {
            guard let file else { return nil }
            let name = (file.path as NSString).lastPathComponent
            let final = folder.freeOriginalPath(name: name, capturedAtMs: capturedAtMs, taken: { claimed.contains($0) })
            claimed.insert(final)
            var staged = file.staged ?? ""
            if file.staged == nil {  // not copied while read (its content looked catalogued then)
                staged = folder.stagingPath(extension: (name as NSString).pathExtension)
                try LibraryFolder.copy(file.path, to: staged)
            }
            moves.append((staged, final))
            return final
        }
        do {
            for unit in units {
                let ms = unit.captureDate.flatMap(ExifCaptureTime.milliseconds)
                placed.append((unit, try place(unit.still, capturedAtMs: ms), try place(unit.movie, capturedAtMs: ms)))
            }
            // One syncfs after the renames makes the copies' bytes and their
            // names durable together, before the catalogue names them. A power
            // loss before it may leave a renamed file without its bytes, but no
            // row names it, so the recovery pass removes it (it is in the journal).
            try journal(moves.map(\.final))
            for move in moves { try LibraryFolder.move(move.staged, to: folder.absolute(move.final)) }
            try folder.sync(fallback: moves.map { folder.absolute($0.final) })
        } catch {
            for move in moves {
                unlink(move.staged)
                unlink(folder.absolute(move.final))
            }
            clearJournal(moves.map(\.final))
            throw error
        }
        let now = clock()
        do {
            return try write { s in
                try Self.clearJournal(moves.map(\.final), in: s)
                return try placed.map { p in
                    let id = try Self.catalogue(p.unit, still: p.still, movie: p.movie, nowMs: now, in: s)
                    for file in [p.unit.still, p.unit.movie].compactMap({ $0 }) {
                        try Self.recordSource(file, asset: id, nowMs: now, in: s)
                        for alias in aliases[file.digest.sha256] ?? [] { try Self.recordSource(alias, asset: id, nowMs: now, in: s) }
                    }
                    return id
                }
            }
        } catch {
            for move in moves { unlink(folder.absolute(move.final)) }  // not catalogued: not kept
            clearJournal(moves.map(\.final))
            throw error
        }
    }

    /// The catalogue rows of one placed unit (a new asset, or the missing half
    /// of a catalogued Live photo); returns the asset id.
    private static func catalogue(_ unit: ImportUnit, still: String?, movie: String?, nowMs: Int64,
                                  in s: RecordStore) throws -> Int64 {
        let facts = unit.still?.facts ?? unit.movie!.facts
        if let target = unit.attachTo {
            if let movie, let file = unit.movie {
                try s.execute("UPDATE library_assets SET kind = 'live', duration_ms = ? WHERE id = ?",
                              [.int(file.facts.durationMs), .integer(target)])
                try insertFile(target, .originalMovie, movie, file, in: s)
            } else if let still, let file = unit.still {
                try s.execute("UPDATE library_files SET role = 'original_movie' WHERE asset_id = ? AND role = 'original'", [.integer(target)])
                try s.execute("""
                    UPDATE library_assets SET kind = 'live', width = ?, height = ?,
                        capture_date = COALESCE(?, capture_date), captured_at_ms = COALESCE(?, captured_at_ms),
                        latitude = COALESCE(?, latitude), longitude = COALESCE(?, longitude),
                        camera = COALESCE(?, camera) WHERE id = ?
                    """, [.int(facts.width), .int(facts.height), facts.captureDate.map(SQLValue.text) ?? .null,
                          facts.captureDate.flatMap(ExifCaptureTime.milliseconds).map(SQLValue.integer) ?? .null,
                          facts.location.map { .real($0.latitude) } ?? .null,
                          facts.location.map { .real($0.longitude) } ?? .null,
                          facts.camera.map(SQLValue.text) ?? .null, .integer(target)])
                try insertFile(target, .original, still, file, in: s)
            }
            return target
        }
        let date = unit.captureDate
        let location = unit.still?.facts.location ?? unit.movie?.facts.location
        let id = try s.query("""
            INSERT INTO library_assets(kind, capture_date, captured_at_ms, latitude, longitude, width, height,
                duration_ms, content_identifier, camera, origin, added_at_ms)
            VALUES (?,?,?,?,?,?,?,?,?,?,'import',?) RETURNING id
            """, [.text(unit.kind.rawValue), date.map(SQLValue.text) ?? .null,
                  date.flatMap(ExifCaptureTime.milliseconds).map(SQLValue.integer) ?? .null,
                  location.map { .real($0.latitude) } ?? .null, location.map { .real($0.longitude) } ?? .null,
                  .int(facts.width), .int(facts.height), .int(unit.movie?.facts.durationMs ?? 0),
                  facts.contentIdentifier.map(SQLValue.text) ?? .null,
                  (unit.still?.facts.camera ?? unit.movie?.facts.camera).map(SQLValue.text) ?? .null,
                  .integer(nowMs)])[0][0].int64!
        if let still, let file = unit.still { try insertFile(id, .original, still, file, in: s) }
        if let movie, let file = unit.movie { try insertFile(id, unit.still == nil ? .original : .originalMovie, movie, file, in: s) }
        return id
    }

    static func insertFile(_ asset: Int64, _ role: FileRole, _ path: String, _ file: ImportFile, in s: RecordStore) throws {
        try s.execute("""
            INSERT INTO library_files(asset_id, role, path, bytes, sha256, width, height) VALUES (?,?,?,?,?,?,?)
            """, [.integer(asset), .text(role.rawValue), .text(path), .integer(file.digest.bytes), .text(file.digest.sha256),
                  .int(file.facts.width), .int(file.facts.height)])
    }
}

/// One file read for import.
struct ImportFile: Sendable {
    var path: String
    var mtimeNs: Int64
    var digest: LibraryDigest
    var facts: LibraryMediaFacts
    /// The copy a worker made at a staging name (consumed by the batch that places it).
    var staged: String?
}

/// One asset to import: a still, a movie, or both (Live); or the half that
/// completes catalogued asset `attachTo`.
struct ImportUnit: Sendable {
    var still: ImportFile?
    var movie: ImportFile?
    var attachTo: Int64? = nil

    init(still: ImportFile?, movie: ImportFile?) {
        self.still = still
        self.movie = movie
    }

    var kind: AssetKind { still != nil && movie != nil ? .live : still != nil ? .photo : .video }
    /// The still's date; a movie's own when alone.
    var captureDate: String? { still?.facts.captureDate ?? movie?.facts.captureDate }
}

struct ImportPlan {
    var units: [ImportUnit] = []
    /// Content already catalogued: (file, its asset).
    var duplicates: [(ImportFile, Int64)] = []
    /// Content of a catalogued original gone from the folder: (file, where it belongs).
    var restores: [(file: ImportFile, gone: LibraryMissingFile)] = []
    /// Repeats within this import of a unit's file, by digest.
    var aliases: [String: [ImportFile]] = [:]
}

/// The workers' queue and results.
private final class ReadResults: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0, done = 0
    private var outcomes: [Result<PhotoLibrary.ReadFile, Error>?]

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    private var cancelled = false

    /// The next file to read, or nil when all are taken or the import is cancelled.
    func claim() -> Int? {
        lock.withLock {
            guard !cancelled, next < outcomes.count else { return nil }
            next += 1
            return next - 1
        }
    }

    func finish(_ n: Int, _ outcome: Result<PhotoLibrary.ReadFile, Error>) -> Int {
        lock.withLock {
            outcomes[n] = outcome
            done += 1
            return done
        }
    }

    /// Stops handing out files; those being read finish.
    func cancel() { lock.withLock { cancelled = true } }

    /// Every outcome in order, or nil when the import was cancelled.
    func all() -> [Result<PhotoLibrary.ReadFile, Error>]? {
        lock.withLock { cancelled || outcomes.contains { $0 == nil } ? nil : outcomes.map { $0! } }
    }

    /// The outcomes of the files read before a cancel (their staged copies to remove).
    func finished() -> [Result<PhotoLibrary.ReadFile, Error>] { lock.withLock { outcomes.compactMap { $0 } } }
}
