// GPS position → place names a search finds a photo by (issue 21).
import Foundation

/// Names of the listed city nearest a position (within its radius) and of
/// its country, in English, simplified Chinese and the local script.
///
/// The built-in table is small and written here by hand: the centre
/// coordinates of major cities are geographic facts, rounded to 0.01°.
/// A position farther than `radiusKm` from every listed city gets no name
/// (there are no country borders here, so a photo taken between cities is not
/// found by its country). Cost: one distance per listed city.
public struct PlaceNames: Sendable {
    /// One listed city.
    public struct City: Sendable, Hashable {
        /// The city's names (Chinese and English).
        public var names: [String]
        /// The country's name.
        public var country: [String]
        /// Latitude in degrees (north positive).
        public var latitude: Double
        /// Longitude in degrees (east positive).
        public var longitude: Double

        /// A city with its names, country, latitude and longitude.
        public init(_ names: [String], country: [String], _ latitude: Double, _ longitude: Double) {
            self.names = names
            self.country = country
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// The cities known.
    public let cities: [City]
    /// How far from a city's centre its name still applies.
    public let radiusKm: Double

    /// Place names from `cities`; a photo within `radiusKm` of a city gets its names.
    public init(cities: [City] = PlaceNames.majorCities, radiusKm: Double = 60) {
        self.cities = cities
        self.radiusKm = radiusKm
    }

    /// No place names at all.
    public static let none = PlaceNames(cities: [])

    /// The city's names then its country's, or nothing when no listed city is near.
    public func names(latitude: Double, longitude: Double) -> [String] {
        var best: (city: City, km: Double)?
        for city in cities {
            let km = Self.distanceKm(latitude, longitude, city.latitude, city.longitude)
            if km <= radiusKm, km < best?.km ?? .infinity { best = (city, km) }
        }
        guard let best else { return [] }
        return best.city.names + best.city.country
    }

    /// Great-circle distance (haversine, mean Earth radius 6371 km).
    static func distanceKm(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = Double.pi / 180
        let dLat = (lat2 - lat1) * r, dLon = (lon2 - lon1) * r
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * r) * cos(lat2 * r) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6371 * asin(min(1, sqrt(a)))
    }

    private static let china = ["China", "中国"], japan = ["Japan", "日本"], korea = ["South Korea", "韩国", "한국"]
    private static let usa = ["United States", "美国"], uk = ["United Kingdom", "英国"], france = ["France", "法国"]
    private static let germany = ["Germany", "德国", "Deutschland"], spain = ["Spain", "西班牙", "España"]
    private static let italy = ["Italy", "意大利", "Italia"]

    /// Major cities (centre coordinates rounded to 0.01°).
    public static let majorCities: [City] = [
        City(["Beijing", "北京"], country: china, 39.90, 116.41),
        City(["Shanghai", "上海"], country: china, 31.23, 121.47),
        City(["Guangzhou", "广州"], country: china, 23.13, 113.26),
        City(["Shenzhen", "深圳"], country: china, 22.54, 114.06),
        City(["Hangzhou", "杭州"], country: china, 30.27, 120.16),
        City(["Chengdu", "成都"], country: china, 30.57, 104.07),
        City(["Xi'an", "西安"], country: china, 34.34, 108.94),
        City(["Wuhan", "武汉"], country: china, 30.59, 114.31),
        City(["Nanjing", "南京"], country: china, 32.06, 118.80),
        City(["Chongqing", "重庆"], country: china, 29.56, 106.55),
        City(["Xiamen", "厦门"], country: china, 24.48, 118.09),
        City(["Sanya", "三亚"], country: china, 18.25, 109.51),
        City(["Hong Kong", "香港"], country: ["Hong Kong", "香港"], 22.32, 114.17),
        City(["Taipei", "台北", "臺北"], country: ["Taiwan", "台湾", "臺灣"], 25.03, 121.57),
        City(["Tokyo", "东京", "東京"], country: japan, 35.68, 139.69),
        City(["Osaka", "大阪"], country: japan, 34.69, 135.50),
        City(["Kyoto", "京都"], country: japan, 35.01, 135.77),
        City(["Sapporo", "札幌"], country: japan, 43.06, 141.35),
        City(["Seoul", "首尔", "서울"], country: korea, 37.57, 126.98),
        City(["Busan", "釜山", "부산"], country: korea, 35.18, 129.08),
        City(["Singapore", "新加坡"], country: ["Singapore", "新加坡"], 1.35, 103.82),
        City(["Bangkok", "曼谷"], country: ["Thailand", "泰国"], 13.76, 100.50),
        City(["Sydney", "悉尼"], country: ["Australia", "澳大利亚"], -33.87, 151.21),
        City(["New York", "纽约"], country: usa, 40.71, -74.01),
        City(["San Francisco", "旧金山"], country: usa, 37.77, -122.42),
        City(["Los Angeles", "洛杉矶"], country: usa, 34.05, -118.24),
        City(["London", "伦敦"], country: uk, 51.51, -0.13),
        City(["Paris", "巴黎"], country: france, 48.86, 2.35),
        City(["Berlin", "柏林"], country: germany, 52.52, 13.40),
        City(["Munich", "慕尼黑", "München"], country: germany, 48.14, 11.58),
        City(["Madrid", "马德里"], country: spain, 40.42, -3.70),
        City(["Barcelona", "巴塞罗那"], country: spain, 41.39, 2.17),
        City(["Rome", "罗马", "Roma"], country: italy, 41.90, 12.50),
        City(["Milan", "米兰", "Milano"], country: italy, 45.46, 9.19),
    ]
}
