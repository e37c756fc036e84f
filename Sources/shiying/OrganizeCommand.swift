import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize

/// `shiying organize scan|groups|decide|verify|life|set-aside` (issue 9; SPEC D1–D10).
enum OrganizeCommand {
    /// Every organize action runs on a record store: `--db FILE`, or a library's catalogue with `--library LIB`.
    private static func action(_ name: String, _ summary: String, operands: [OperandSpec] = [], options: [OptionSpec] = [],
                               _ body: @escaping @Sendable (ParsedArguments, String, [String]) throws -> Int32) -> CommandSpec {
        CommandSpec(path: ["organize", name], summary: summary, operands: operands,
                    options: options + [.path("db", "FILE", "the organize record store (SQLite)"),
                                        .path("library", "LIB", "a photo library: its catalogue instead of --db"), .json],
                    oneOf: ["db", "library"],
                    run: { parsed in
                        // A library's catalogue is a record store: organize runs on it in place of a separate --db.
                        let library = parsed.string("library").map(LibraryFolder.init)
                        if let library, !FileManager.default.fileExists(atPath: library.catalogue) {
                            throw UsageError("\(library.root) is not a photo library (run shiying library init)")
                        }
                        guard let db = parsed.string("db") ?? library?.catalogue else {
                            throw UsageError("organize \(name) needs --db FILE or --library LIB")
                        }
                        var operands = parsed.positionals
                        if name == "scan", operands.isEmpty, let library { operands = [library.originals] }
                        return try body(parsed, db, operands)
                    })
    }

    static let spec = CommandSpec(
        path: ["organize"], summary: "duplicates, similar shots and bursts; the Life view; set-aside (issue 9; SPEC D1–D10)",
        subcommands: [
            action("scan", "fingerprint every photo of a folder (with --library: the library's originals) and group them",
                   operands: [OperandSpec("DIR", .optional, "the folder (default with --library: its originals)")],
                   options: [.flag("ocr", "recognize text too (needs tesseract)")]) { parsed, db, operands in
                let org = try open(db, parsed)
                guard operands.count == 1 else { throw UsageError("organize scan takes one DIR (or --library LIB)") }
                return try scan(operands[0], org, ocr: parsed.has("ocr"), json: parsed.json)
            },
            action("groups", "the groups found: duplicates, similar shots, bursts") { parsed, db, _ in
                let org = try open(db, parsed)
                return try groups(org, json: parsed.json)
            },
            action("decide", "organize groups: keep one (the best, or --keeper) or set all aside",
                   options: [.text("groups", "ID,ID,…", "the groups"), .flag("all-similar", "every similar group not yet organized"),
                             .flag("keep-one", "keep one of each group, set the rest aside"),
                             .flag("set-all-aside", "set every member aside"),
                             .text("keeper", "ASSET", "the asset to keep (an asset id)")]) { parsed, db, _ in
                let org = try open(db, parsed)
                return try decide(parsed, org)
            },
            action("verify", "check a duplicate group against what the scan recorded (each member's size, media type and pixel fingerprint; SPEC D7: no original is read); exit 1 when it is not verified",
                   operands: [OperandSpec("GROUP", .one, "the group id")]) { parsed, db, operands in
                let org = try open(db, parsed)
                guard let id = Int64(operands[0]) else { throw UsageError("organize verify takes one GROUP id") }
                let result = try org.verifyDuplicateGroup(id: id)
                try emit(result, json: parsed.json) {
                    result.verified ? "group \(id): verified" : "group \(id): NOT verified\n" + result.problems.joined(separator: "\n")
                }
                return result.verified ? 0 : 1
            },
            action("life", "the Life view: what is left out and why; --set ASSET VALUE overrides one asset",
                   operands: [OperandSpec("VALUE", .optional, "with --set: life, not-life or clear")],
                   options: [.text("set", "ASSET", "the asset id to override")]) { parsed, db, _ in
                let org = try open(db, parsed)
                return try life(parsed, org)
            },
            action("set-aside", "what is set aside, and the space deleting it would free") { parsed, db, _ in
                let org = try open(db, parsed)
                return try setAside(org, json: parsed.json)
            },
        ])

    /// On a library, organize's set-aside decisions go to the library's own set-aside list.
    private static func open(_ db: String, _ parsed: ParsedArguments) throws -> OrganizeStore {
        OrganizeStore(store: try RecordStore(path: db), libraryRoot: parsed.string("library").map { LibraryFolder($0).root })
    }

    /// The asset ids organize shows and takes. On a library they are the
    /// library's (what `library list` and `library delete` use), not
    /// organize's record ids: a record id handed to `library delete` would
    /// delete another photo. A loose folder's store has only its own ids.
    private struct AssetIDs {
        private var toLibrary: [Int64: Int64] = [:], fromLibrary: [Int64: Int64] = [:]

        init(_ org: OrganizeStore) throws {
            guard org.libraryRoot != nil else { return }
            toLibrary = try org.libraryAssetIDs()
            for (record, asset) in toLibrary { fromLibrary[asset] = record }
        }

        var onLibrary: Bool { !toLibrary.isEmpty }
        func shown(_ record: Int64) -> Int64 { toLibrary[record] ?? record }
        /// The record an id given on the command line names; nil when none.
        func record(_ id: Int64) -> Int64? { onLibrary ? fromLibrary[id] : id }
    }

    // MARK: - scan

    /// `OrganizeScanner.scan` with progress on stderr; the report as text or JSON.
    private static func scan(_ dir: String, _ org: sending OrganizeStore, ocr: Bool, json: Bool) throws -> Int32 {
        let progress = ProgressReporter(label: "organize scan")
        defer { progress.finish() }
        let report: OrganizeScanReport
        do {
            report = try blocking { try await OrganizeScanner.scan(folder: dir, store: org, ocr: ocr, progress: progress.report) }
        } catch OrganizeScanError.ocrUnavailable {
            throw UsageError("--ocr needs tesseract (apt-get install tesseract-ocr tesseract-ocr-chi-sim)")
        } catch let error as OrganizeScanError {
            throw UsageError(error.description)
        }
        progress.finish()
        try emit(report, json: json) {
            "scanned \(report.scanned) items (\(report.livePhotos) Live photos, \(report.videos) videos; "
                + "\(report.unchanged) unchanged, \(report.skipped.count) skipped) in \(String(format: "%.2f", report.seconds)) s: "
                + "\(report.duplicateGroups) duplicate, \(report.similarGroups) similar, \(report.burstGroups) burst groups"
                + report.skipped.map { "\nskipped \($0.path): \($0.error)" }.joined()
        }
        return 0
    }

    // MARK: - groups, decide

    private struct Member: Encodable { var id: Int64; var path: String; var quality: Double? }
    private struct GroupLine: Encodable {
        var id: Int64
        var kind: String
        var members: [Member]
        var keeper: Int64?
        var organized: Bool
    }
    private struct GroupsReport: Encodable { var groups: [GroupLine] }

    private static func groups(_ org: OrganizeStore, json: Bool) throws -> Int32 {
        let byID = Dictionary(uniqueKeysWithValues: try org.assets().map { ($0.id, $0) })
        let ids = try AssetIDs(org)
        let lines = try org.groupViews().map { v in
            GroupLine(id: v.group.id, kind: v.group.kind.rawValue,
                      members: v.group.members.map {
                          Member(id: ids.shown($0), path: byID[$0]?.path ?? "", quality: byID[$0]?.quality)
                      },
                      keeper: v.keeper.map(ids.shown), organized: v.organized)
        }
        try emit(GroupsReport(groups: lines), json: json) {
            lines.map { g in
                "group \(g.id) \(g.kind)\(g.organized ? " (organized)" : ""): "
                    + g.members.map { "\($0.id == g.keeper ? "*" : "")\($0.path)" }.joined(separator: ", ")
            }.joined(separator: "\n")
        }
        return 0
    }

    private struct DecideReport: Encodable {
        var batch: Int64
        var groups: Int
        var kept: [Int64]
        var setAside: [Int64]
    }

    private static func decide(_ parsed: ParsedArguments, _ org: OrganizeStore) throws -> Int32 {
        let keepOne = parsed.has("keep-one"), allAside = parsed.has("set-all-aside")
        guard keepOne != allAside else { throw UsageError("organize decide needs --keep-one or --set-all-aside") }
        var ids: [Int64]
        if parsed.has("all-similar") {
            ids = try org.groupViews().filter { $0.group.kind == .similar && !$0.organized }.map(\.group.id)
        } else if let list = parsed.string("groups") {
            ids = try list.split(separator: ",").map {
                guard let id = Int64($0.trimmingCharacters(in: .whitespaces)) else { throw UsageError("bad group id \($0)") }
                return id
            }
        } else {
            throw UsageError("organize decide needs --groups ID,… or --all-similar")
        }
        let assetIDs = try AssetIDs(org)
        if let keeper = parsed.string("keeper") {
            guard let given = Int64(keeper) else { throw UsageError("--keeper expects an asset id") }
            // the keeper must be in every group decided; it replaces an earlier keeper of those groups
            let groups = try org.groups().filter { ids.contains($0.id) }
            let id = assetIDs.record(given) ?? -1
            if let outside = groups.first(where: { !$0.members.contains(id) }) {
                throw UsageError("--keeper \(given) is not a member of group \(outside.id) (its members: "
                                 + outside.members.map { String(assetIDs.shown($0)) }.joined(separator: ", ") + ")")
            }
            try org.markKeeper(assetID: id, replacingIn: groups)
        }
        do {
            let r = try org.decide(groupIDs: ids, action: keepOne ? .keepOne : .setAllAside,
                                   nowMs: Int64(Date().timeIntervalSince1970 * 1000),
                                   isPresent: { FileManager.default.fileExists(atPath: $0.path) })
            let report = DecideReport(batch: r.batchID, groups: r.groups, kept: r.kept.values.map(assetIDs.shown).sorted(),
                                      setAside: r.setAside.map(assetIDs.shown))
            try emit(report, json: parsed.json) {
                "organized \(r.groups) groups: kept \(report.kept.count), set aside \(r.setAside.count)"
            }
            return 0
        } catch let error as OrganizeError {
            // SPEC D4: the page's message, nothing shown as organized
            writeStderr(Data("shiying: \(error.message) (\(error.detail))\n".utf8))
            if parsed.json { print(try JSONReport.line(["error": error.message, "detail": error.detail])) }
            return 1
        }
    }

    // MARK: - life, set aside

    private struct LifeLine: Encodable { var id: Int64; var path: String; var reason: String; var infoLine: String; var restoreAction: String }
    private struct LifeReport: Encodable { var inLife: Int; var notInLife: [LifeLine] }

    private static func life(_ parsed: ParsedArguments, _ org: OrganizeStore) throws -> Int32 {
        let assetIDs = try AssetIDs(org)
        if let set = parsed.string("set") {
            guard let given = Int64(set), parsed.positionals.count == 1 else {
                throw UsageError("organize life --set ASSET life|not-life|clear")
            }
            guard let id = assetIDs.record(given), try org.assets().contains(where: { $0.id == id }) else {
                throw UsageError("organize life --set: no asset \(given) in this store (see organize life)")
            }
            switch parsed.positionals[0] {
            case "life": try org.setLifeOverride(.life, assetID: id)
            case "not-life": try org.setLifeOverride(.notLife, assetID: id)
            case "clear": try org.setLifeOverride(nil, assetID: id)
            default: throw UsageError("organize life --set ASSET life|not-life|clear")
            }
        } else if let value = parsed.positionals.first {
            throw UsageError("organize life: \(value) needs --set ASSET")
        }
        let decisions = try org.lifeDecisions()
        let out = decisions.filter { !$0.decision.inLife }.map { d in
            LifeLine(id: assetIDs.shown(d.asset.id), path: d.asset.path, reason: d.decision.reason?.code ?? "",
                     infoLine: d.decision.infoLine ?? "", restoreAction: d.decision.restoreAction ?? "")
        }
        let report = LifeReport(inLife: decisions.count - out.count, notInLife: out)
        try emit(report, json: parsed.json) {
            "\(report.inLife) in Life; \(out.count) not:" + out.map { "\n\($0.path): \($0.infoLine)" }.joined()
        }
        return 0
    }

    private struct SetAsideReport: Encodable { var items: [Member]; var freedBytes: Int64; var freedText: String }

    private static func setAside(_ org: OrganizeStore, json: Bool) throws -> Int32 {
        let items = try org.setAsideAssets()
        let ids = try AssetIDs(org)
        let freed: FreedSpace
        if ids.onLibrary, let root = org.libraryRoot {
            // SPEC D2 as `library delete` will measure it: every file of each asset (a Live photo's movie, an
            // edit's original and rendition), on disk
            let library = try PhotoLibrary(at: root)
            let shown = items.map { ids.shown($0.id) }
            freed = try blocking { try await library.deletionRequest(shown).freed }
        } else {
            freed = SetAsideDeletion.freed(items.map {
                DeletionItem(id: $0.id, currentBytes: $0.fileBytes, fullResourceBytes: $0.fullResourceBytes)
            })
        }
        let report = SetAsideReport(items: items.map { Member(id: ids.shown($0.id), path: $0.path, quality: $0.quality) },
                                    freedBytes: freed.bytes, freedText: freed.text)
        try emit(report, json: json) { items.map(\.path).joined(separator: "\n") + "\n" + freed.text }
        return 0
    }

    private static func emit<T: Encodable>(_ value: T, json: Bool, text: () -> String) throws {
        print(json ? try JSONReport.line(value) : text())
    }
}
