// Persistence of the filter history and custom filters (SPEC E3, E4): one
// small JSON file, replaced atomically (temp file + rename) on every change,
// so a crash mid-write never loses the user's saved filters.
import Foundation

/// What the store file holds.
public struct FilterPreferences: Sendable, Hashable, Codable {
    /// File schema version written by this code.
    public static let currentVersion = 1

    /// The stored format's version (`currentVersion` when written).
    public var version: Int
    /// Built-in filter uses, most recent first.
    public var history: FilterUseHistory
    /// Custom filters in the order they were saved.
    public var customFilters: [CustomFilter]

    /// - Parameters: the history and the custom filters.
    public init(history: FilterUseHistory = FilterUseHistory(), customFilters: [CustomFilter] = []) {
        self.version = Self.currentVersion
        self.history = history
        self.customFilters = customFilters
    }

    enum CodingKeys: String, CodingKey { case version, history, customFilters }

    /// Unknown keys are ignored; a newer `version` is refused.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 1
        guard version <= Self.currentVersion else {
            throw FilterError(.unsupportedVersion,
                              "filter store: version \(version) is newer than the supported version \(Self.currentVersion)")
        }
        self.version = version
        history = try c.decodeIfPresent(FilterUseHistory.self, forKey: .history) ?? FilterUseHistory()
        customFilters = try c.decodeIfPresent([CustomFilter].self, forKey: .customFilters) ?? []
    }
}

/// The filter preferences file. Each change is read-modify-write of the
/// whole file inside the actor, so changes from one process never interleave.
public actor FilterStore {
    /// The file's path.
    public let path: String
    private let clock: @Sendable () -> Int64
    private let makeID: @Sendable () -> String

    /// Unix milliseconds from the system clock.
    public static let systemClock: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// - Parameters:
    ///   - path: the JSON file (created on first change; its folder must exist).
    ///   - clock: current time in Unix milliseconds (injectable for tests).
    ///   - makeID: new custom filter ids (default `custom-<UUID>`).
    public init(path: String, clock: @escaping @Sendable () -> Int64 = FilterStore.systemClock,
                makeID: @escaping @Sendable () -> String = { "custom-\(UUID().uuidString.lowercased())" }) {
        self.path = path
        self.clock = clock
        self.makeID = makeID
    }

    /// The stored preferences; empty when the file does not exist yet.
    /// - Throws: `FilterError` (`.corruptStore`, `.unsupportedVersion`); `ShiyingError` (`.io`).
    ///   A corrupt file is reported, never silently replaced.
    public func load() throws -> FilterPreferences {
        guard FileManager.default.fileExists(atPath: path) else { return FilterPreferences() }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ShiyingError(code: .io, message: "\(path): cannot read: \(error.localizedDescription)", file: path)
        }
        do {
            return try JSONDecoder().decode(FilterPreferences.self, from: data)
        } catch let error as FilterError {
            throw error.kind == .unsupportedVersion ? FilterError(error.kind, "\(path): \(error.message)")
                : FilterError(.corruptStore, "\(path): \(error.message)")
        } catch {
            throw FilterError(.corruptStore, "\(path): not a filter store (\(error))")
        }
    }

    /// Opens the filter page now: the strip is fixed at this moment (SPEC E3).
    /// - Throws: as `load()`.
    public func openPage(catalogue: FilterCatalogue, recentLimit: Int = FilterStrip.defaultRecentLimit) throws -> FilterPage {
        let preferences = try load()
        return FilterPage(catalogue: catalogue, history: preferences.history, customFilters: preferences.customFilters,
                          openedAtMilliseconds: clock(), recentLimit: recentLimit)
    }

    /// Records that a built-in filter was applied now (other tiles are ignored).
    /// - Throws: as `load()`; `ShiyingError` (`.io`) when the file cannot be written.
    public func recordUse(_ item: FilterStripItem) throws {
        guard case .filter(let id) = item else { return }
        var preferences = try load()
        preferences.history.record(id, at: clock())
        try save(preferences)
    }

    /// Saves the colour part of `recipe` as a custom filter named `name`.
    /// - Returns: the new filter (show it with `FilterPage.didSave`).
    /// - Throws: `FilterError` (`.invalidName`, `.nothingToSave`), as `load()`, `ShiyingError` (`.io`).
    public func saveCustomFilter(name: String, from recipe: EditRecipe) throws -> CustomFilter {
        var preferences = try load()
        let custom = try CustomFilter(id: makeID(), name: name, recipe: recipe, createdAtMilliseconds: clock())
        preferences.customFilters.append(custom)
        try save(preferences)
        return custom
    }

    /// Deletes the custom filter `id`.
    /// - Throws: `FilterError` (`.notFound`), as `load()`, `ShiyingError` (`.io`).
    public func deleteCustomFilter(id: String) throws {
        var preferences = try load()
        guard let index = preferences.customFilters.firstIndex(where: { $0.id == id }) else {
            throw FilterError(.notFound, "custom filter \"\(id)\" does not exist")
        }
        preferences.customFilters.remove(at: index)
        try save(preferences)
    }

    private func save(_ preferences: FilterPreferences) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(preferences)
        } catch {
            throw ShiyingError(code: .io, message: "\(path): cannot encode: \(error)", file: path)
        }
        try AtomicFile.replace(path, with: data)
    }
}
