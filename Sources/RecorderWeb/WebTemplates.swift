/// The page's HTML: templates in Mustache's syntax (`Resources/*.mustache`, compiled into the
/// binary; `PageTemplate` reads them), which escape every value they show (`{{value}}`; no form
/// writes one unescaped), each page's a child of `layout` (template inheritance: no page pastes
/// HTML into another). The style sheet and script are resource files too (`Resources/app.css`,
/// `app.js`).
enum WebTemplates {
    static let library: PageTemplateLibrary = {
        // Every value is escaped by `HTML.escape`: HTML's entities, and no control character
        // reaches a page (a file name or an error message could carry one). The templates still
        // start with `{{% CONTENT_TYPE: RECORDERD_HTML }}`, as they did under swift-mustache.
        var library = PageTemplateLibrary()
        let templates: [(String, [UInt8])] = [
            ("layout", PackageResources.layout_mustache), ("error", PackageResources.error_mustache),
            ("login", PackageResources.login_mustache), ("devices", PackageResources.devices_mustache),
            ("runs", PackageResources.runs_mustache), ("run", PackageResources.run_mustache),
            ("tasks", PackageResources.tasks_mustache), ("task", PackageResources.task_mustache),
        ]
        for (name, bytes) in templates {
            // The templates are part of the binary: one that does not parse is a bug caught by the
            // first test that renders a page.
            try! library.register(String(decoding: bytes, as: UTF8.self), named: name)
        }
        return library
    }()

    static let css = String(decoding: PackageResources.app_css, as: UTF8.self)
    static let script = String(decoding: PackageResources.app_js, as: UTF8.self)

    /// `page` rendered with the template `name` inside the layout.
    static func render<Content>(_ name: String, _ page: WebPage<Content>) -> String {
        library.render(page, withTemplate: name, escape: HTML.escape) ?? "<!DOCTYPE html><title>recorderd</title><p>no template \(name)</p>"
    }
}

/// What the layout shows around a page: its title, section, the CSRF token the script sends
/// back, the navigation; `page`, the page's own values.
struct WebPage<Content> {
    struct Link {
        let id: String
        let label: String
        let here: Bool
    }

    let title: String
    let section: String
    let csrf: String
    let nav: [Link]
    let page: Content

    init(title: String, section: String, csrf: String, page: Content) {
        self.title = title
        self.section = section
        self.csrf = csrf
        nav = [("devices", "Devices"), ("tasks", "Tasks"), ("runs", "Runs")].map { Link(id: $0.0, label: $0.1, here: $0.0 == section) }
        self.page = page
    }
}
