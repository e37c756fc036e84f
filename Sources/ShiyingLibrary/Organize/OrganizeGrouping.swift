// Groups formed from stored scan facts: exact duplicates, bursts (SPEC D8),
// similar photos (perceptual distance + capture-time proximity).

/// Thresholds of the grouping, with the defaults the CLI uses.
public struct GroupingRule: Sendable, Hashable {
    /// Largest pHash Hamming distance for "similar" when both capture times are known.
    public var similarDistance = 10
    /// … and their capture times differ by at most this (ms).
    public var similarWindowMs: Int64 = 120_000
    /// Largest distance when a capture time is missing (stricter: no time evidence).
    public var similarDistanceWithoutTime = 6
    /// Own bursts: consecutive shots at most this far apart (ms; Exif has 1 s resolution) …
    public var burstGapMs: Int64 = 1_000
    /// … and at least this many of them.
    public var burstMinimumCount = 3

    /// The default thresholds.
    public init() {}
}

/// Groups scanned assets into duplicates, similar shots and bursts.
public enum OrganizeGrouping {
    /// Forms every group over `assets` (ids must be set).
    /// Order: exact duplicates (same decoded pixels, same bucket: media type,
    /// size, duration), then bursts, then similar groups among what is left
    /// (one representative per duplicate group; burst members excluded).
    public static func groups(_ assets: [OrganizeAsset], rule: GroupingRule = GroupingRule()) -> [OrganizeGroup] {
        let ordered = assets.sorted { ($0.capturedAtMs ?? .max, $0.path) < ($1.capturedAtMs ?? .max, $1.path) }
        var result: [OrganizeGroup] = []

        // Exact duplicates.
        struct Bucket: Hashable { var pixels: String, media: OrganizeMediaType, w: Int, h: Int, duration: Int }
        var buckets: [Bucket: [OrganizeAsset]] = [:]
        var bucketOrder: [Bucket] = []
        for a in ordered {
            let key = Bucket(pixels: a.pixelSHA256, media: a.mediaType, w: a.width, h: a.height, duration: a.durationMs)
            if buckets[key] == nil { bucketOrder.append(key) }
            buckets[key, default: []].append(a)
        }
        var duplicateOf: Set<Int64> = [] // non-first members of duplicate groups
        for key in bucketOrder {
            let members = buckets[key]!
            guard members.count >= 2 else { continue }
            result.append(OrganizeGroup(kind: .duplicate, members: members.map(\.id), evidence: key.pixels))
            members.dropFirst().forEach { duplicateOf.insert($0.id) }
        }
        let distinctMedia = ordered.filter { !duplicateOf.contains($0.id) }
        let distinct = distinctMedia.filter { $0.mediaType == .photo }

        // Bursts (SPEC D8): screenshots are never burst members, even with a burst flag.
        var inBurst: Set<Int64> = []
        var systemBursts: [String: [OrganizeAsset]] = [:]
        var systemOrder: [String] = []
        for a in distinct where !a.isScreenshot {
            guard let burst = a.burstID else { continue }
            if systemBursts[burst] == nil { systemOrder.append(burst) }
            systemBursts[burst, default: []].append(a)
        }
        for burst in systemOrder {
            let members = systemBursts[burst]!
            guard members.count >= 2 else { continue }
            let rep = members.first(where: \.isBurstRepresentative)?.id
            result.append(OrganizeGroup(kind: .burst, members: members.map(\.id), evidence: burst,
                                        systemRepresentative: rep))
            members.forEach { inBurst.insert($0.id) }
        }
        // Runs per camera output (size and coding): the shots of one burst share
        // it, while an export, a resized or a rotated copy of a shot does not
        // and stays for "similar".
        struct Output: Hashable { var w: Int, h: Int, format: String }
        var runs: [Output: [OrganizeAsset]] = [:]
        var runOrder: [Output] = []
        func closeRun(_ key: Output) {
            let run = runs[key] ?? []
            if run.count >= rule.burstMinimumCount {
                result.append(OrganizeGroup(kind: .burst, members: run.map(\.id)))
                run.forEach { inBurst.insert($0.id) }
            }
            runs[key] = []
        }
        for a in distinct where !a.isScreenshot && a.burstID == nil {
            guard let t = a.capturedAtMs else { continue }
            let key = Output(w: a.width, h: a.height, format: a.format)
            if runs[key] == nil { runOrder.append(key) }
            if let last = runs[key]?.last?.capturedAtMs, t - last > rule.burstGapMs { closeRun(key) }
            runs[key, default: []].append(a)
        }
        runOrder.forEach(closeRun)

        // Similar: single-link clusters over the remaining photos (Live ones
        // included) and, apart from them, over the videos.
        let pool = distinctMedia.filter { !inBurst.contains($0.id) }
        var parent = Array(pool.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        for i in pool.indices {
            for j in pool.indices where j > i {
                if isSimilar(pool[i], pool[j], rule) { parent[root(j)] = root(i) }
            }
        }
        var clusters: [Int: [OrganizeAsset]] = [:]
        var clusterOrder: [Int] = []
        for i in pool.indices {
            let r = root(i)
            if clusters[r] == nil { clusterOrder.append(r) }
            clusters[r, default: []].append(pool[i])
        }
        for r in clusterOrder where clusters[r]!.count >= 2 {
            result.append(OrganizeGroup(kind: .similar, members: clusters[r]!.map(\.id)))
        }
        return result
    }

    /// Same media type, perceptual distance (the nearer of the pictures as
    /// they are and turned: a rotated copy is the same photo) plus, when both
    /// are known, capture-time proximity.
    public static func isSimilar(_ a: OrganizeAsset, _ b: OrganizeAsset, _ rule: GroupingRule) -> Bool {
        guard a.mediaType == b.mediaType else { return false }
        let turns = b.phashTurned.map { (a.phash ^ $0).nonzeroBitCount } + a.phashTurned.map { (b.phash ^ $0).nonzeroBitCount }
        let distance = min((a.phash ^ b.phash).nonzeroBitCount, turns.min() ?? 64)
        if let ta = a.capturedAtMs, let tb = b.capturedAtMs {
            return distance <= rule.similarDistance && abs(ta - tb) <= rule.similarWindowMs
        }
        return distance <= rule.similarDistanceWithoutTime
    }
}
