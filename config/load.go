package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// ReadFunc reads a file; Load uses ReadFile.
type ReadFunc func(path string) ([]byte, error)

// Load reads every source and returns a snapshot. It never fails as a
// whole: problems are diagnostics in the snapshot.
func Load(src Sources) *Snapshot { return LoadWith(src, ReadFile) }

// LoadWith is Load with a custom reader (tests, unsaved editor buffers).
func LoadWith(src Sources, read ReadFunc) *Snapshot {
	r := src.resolve()
	snap := &Snapshot{Sources: src, registries: map[Kind]*Registry{}}

	var fileDiags []Diagnostic
	found := 0
	readLoc := func(l location) ([]byte, bool) {
		if l.path == "" {
			return nil, false
		}
		data, err := read(l.path)
		var fe *FileError
		switch {
		case err == nil:
			found++
			return data, true
		case errors.As(err, &fe) && errors.Is(err, ErrTooLarge):
			fileDiags = append(fileDiags, Diagnostic{Position: Position{File: l.path, Line: 1, RuneCol: 1}, Severity: SeverityError,
				Code: CodeFileTooLarge, Message: "configuration file not read: " + fe.Error() + "; check that the path names the configuration file (the file is ignored)"})
		case errors.As(err, &fe):
			fileDiags = append(fileDiags, Diagnostic{Position: Position{File: l.path, Line: 1, RuneCol: 1}, Severity: SeverityError,
				Code: CodeNotRegularFile, Message: "configuration file not read: " + fe.Error() + "; name a regular file, or a symbolic link to one (the path is ignored)"})
		case errors.Is(err, fs.ErrNotExist) || !l.explicit && errors.Is(err, syscall.ENOTDIR):
			// A looked-for file under a root that is a file is as absent
			// as one under an empty root; CheckRoot below says why.
			if l.explicit {
				fileDiags = append(fileDiags, Diagnostic{Position: Position{File: l.path, Line: 1, RuneCol: 1}, Severity: SeverityError,
					Code: CodeFileNotFound, Message: "configuration file not found: check the path given on the command line, in RESTLS_* or in the editor settings"})
			}
		default:
			fileDiags = append(fileDiags, Diagnostic{Position: Position{File: l.path, Line: 1, RuneCol: 1}, Severity: SeverityError,
				Code: CodeFileUnreadable, Message: "cannot read configuration file: " + errWithoutPath(err)})
		}
		return nil, false
	}

	// Read every file first (in reading order, so file diagnostics keep
	// it), then parse them concurrently: they are independent.
	propData := make([][]byte, len(r.properties))
	for i, l := range r.properties {
		propData[i], _ = readLoc(l)
	}
	serviceData, haveService := readLoc(r.serviceXML)
	handlerData, haveHandler := readLoc(r.handlerXML)
	platformData, havePlatform := readLoc(r.platformConfig)

	var wg sync.WaitGroup
	props := make([]*parsed, len(r.properties))
	for i, l := range r.properties {
		if propData[i] == nil {
			continue
		}
		wg.Go(func() {
			if strings.EqualFold(filepath.Ext(l.path), ".properties") {
				props[i] = parseProperties(l.path, string(propData[i]))
			} else {
				props[i] = parseYAML(l.path, propData[i])
			}
		})
	}
	var serviceXML, handlerXML *parsed
	if haveService {
		wg.Go(func() { serviceXML = parseServiceXML(r.serviceXML.path, serviceData) })
	}
	if haveHandler {
		wg.Go(func() { handlerXML = parseServiceXML(r.handlerXML.path, handlerData) })
	}
	timeouts := DefaultTimeouts
	var platformDiags []Diagnostic
	if havePlatform {
		wg.Go(func() { timeouts, platformDiags = parsePlatform(r.platformConfig.path, platformData) })
	}
	wg.Wait()
	snap.entries = loadEntries(props, propData, serviceXML, serviceData, handlerXML, handlerData)
	props = slices.DeleteFunc(props, func(p *parsed) bool { return p == nil })

	if found == 0 {
		// Nothing read: say whether that is because the named root is not
		// there at all, rather than "nothing found" in it.
		if err := src.CheckRoot(); err != nil {
			fileDiags = append(fileDiags, Diagnostic{Position: Position{File: src.ConfigRoot, Line: 1, RuneCol: 1}, Severity: SeverityError,
				Code: CodeRootNotFound, Message: err.Error()})
		}
	}
	if found == 0 && len(fileDiags) == 0 {
		where := r.root
		if where == "" {
			where = "."
		}
		fileDiags = append(fileDiags, Diagnostic{Position: Position{File: where, Line: 1, RuneCol: 1}, Severity: SeverityInfo, Code: CodeNoConfiguration,
			Message: "no configuration found: looked for " + strings.Join(src.Files(), ", ") + "; run restls init to write restls.yaml, or name the configuration's root (configRoot in restls.yaml or the editor's settings, --config-root on the command line)"})
	}

	// scriptService and validationScript read the same sources, so they
	// share one merge; scriptTask has its own.
	var scriptReg, taskReg *Registry
	wg.Go(func() { scriptReg = build(props, serviceXML, timeouts, found > 0, fileDiags, platformDiags) })
	taskReg = build(props, handlerXML, timeouts, found > 0, fileDiags, platformDiags)
	wg.Wait()
	for _, k := range Kinds {
		if k.UsesHandlerXML() {
			taskReg.Kind = k
			snap.registries[k] = taskReg
			continue
		}
		reg := *scriptReg
		reg.Kind = k
		snap.registries[k] = &reg
	}
	return snap
}

// build merges the properties and one XML file into a registry.
func build(props []*parsed, x *parsed, timeouts Timeouts, loaded bool, fileDiags, platformDiags []Diagnostic) *Registry {
	{
		sources := append([]*parsed(nil), props...)
		if x != nil {
			sources = append(sources, x)
		}
		reg := merge("", sources)
		reg.Timeouts = timeouts
		reg.Loaded = loaded
		diags := append([]Diagnostic(nil), fileDiags...)
		for _, s := range sources {
			diags = append(diags, s.diags...)
		}
		diags = append(diags, platformDiags...)
		reg.Diagnostics = sortByReadingOrder(append(diags, reg.Diagnostics...), sources)
		return reg
	}
}

// errWithoutPath drops the path that os errors repeat.
func errWithoutPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// merger resolves entries of one kind in reading order.
type merger struct {
	reg   *Registry
	diags []Diagnostic
	// latest definition of each serviceId seen so far, usable or not: an
	// index into arena and state.
	latest map[string]int32
	// arena holds the services, one allocation for all of them, usable or
	// not; state says which are.
	arena []Service
	state []entryState
	// oauthBroken holds, for each unusable oAuth id, why.
	oauthBroken map[string]string
	oauthSeen   map[string]Position
	// sources are searched, only when a reference names an id not read
	// yet, to tell a reference to a later entry from one to a missing entry.
	sources []*parsed
	// defined is the index of firstDefinition, built on first use.
	defined map[string]Position
	// suggestions counts the "did you mean" searches made.
	suggestions int
}

// firstDefinition returns where id is first defined in any source. The
// index is built at the first reference that does not resolve: most
// configurations have none, and one scan per such reference made a file of
// many of them quadratic.
func (m *merger) firstDefinition(id string) (Position, bool) {
	if m.defined == nil {
		m.defined = map[string]Position{}
		for _, s := range m.sources {
			for i := range s.apis {
				// An id with a control character is refused where it
				// is defined, so it is not "defined later" either.
				if v := s.apis[i].serviceID.value; v != "" && !hasControlChar(v) {
					if _, ok := m.defined[v]; !ok {
						m.defined[v] = s.apis[i].pos
					}
				}
			}
		}
	}
	p, ok := m.defined[id]
	return p, ok
}

// maxSuggestions bounds the "did you mean" searches of one merge: each
// compares with every usable serviceId, so a file of many unknown
// references would cost their number times the number of services. Past
// it, the messages still name the unknown serviceId and what to do.
const maxSuggestions = 100

// suggest returns the usable serviceId nearest to ref, or "".
func (m *merger) suggest(ref string) string {
	if m.suggestions >= maxSuggestions {
		return ""
	}
	m.suggestions++
	if near := nearest(ref, m.usableIDs(), 1); len(near) > 0 {
		return near[0]
	}
	return ""
}

// entryState is what the merge knows of an entry beyond its Service.
type entryState struct {
	usable bool
	// whyNot is a short reason, without any value of the entry, for the
	// messages of the entries that refer to this one: it never quotes
	// another entry's message, so messages do not nest and their size does
	// not grow with the length of a chain (issue 23, finding 3).
	whyNot string
	// ref is the serviceId the url refers to when it has the reference
	// form <serviceId>/<suffix>, resolved or not; refRef is set when that
	// serviceId was itself such a reference.
	ref    string
	refRef bool
}

func (m *merger) add(pos Position, sev Severity, code, id, msg string) {
	m.diags = append(m.diags, Diagnostic{Position: pos, Severity: sev, Code: code, ServiceID: id, Message: msg})
}

func (m *merger) addOAuth(pos Position, sev Severity, code, id, msg string) {
	m.diags = append(m.diags, Diagnostic{Position: pos, Severity: sev, Code: code, OAuthID: id, Message: msg})
}

func merge(kind Kind, sources []*parsed) *Registry {
	n := 0
	for _, s := range sources {
		n += len(s.apis)
	}
	m := &merger{
		reg: &Registry{Kind: kind, services: make(map[string]*Service, n), unusable: map[string]Diagnostic{},
			oauth: map[string]*OAuth{}},
		latest:      make(map[string]int32, n),
		arena:       make([]Service, 0, n),
		state:       make([]entryState, 0, n),
		oauthBroken: map[string]string{},
		oauthSeen:   map[string]Position{},
		sources:     sources,
	}
	// OAuth definitions first: an api may name an oAuth defined anywhere in
	// the sources of its kind.
	for _, s := range sources {
		for i := range s.oauths {
			m.oauth(&s.oauths[i])
		}
	}
	for _, s := range sources {
		for i := range s.apis {
			m.api(&s.apis[i])
		}
	}
	m.reg.finish()
	m.reg.Diagnostics = m.diags
	return m.reg
}

func (m *merger) api(a *rawAPI) {
	id := a.serviceID.value
	if id == "" {
		m.add(a.pos, SeverityError, CodeMissingServiceID, "",
			"api entry has no serviceId: add serviceId so that scripts can name it (the entry is ignored)")
		return
	}
	if r, at, ok := ControlChar(id); ok {
		m.add(a.serviceID.pos, SeverityError, CodeBadServiceID, "",
			fmt.Sprintf("serviceId %q contains the control character %U at byte %d: a serviceId is a name scripts write between quotes, and restls writes it into shell commands (Copy as cURL); remove the character (the entry is ignored)", id, r, at))
		return
	}
	if prev, ok := m.latest[id]; ok {
		m.add(a.pos, SeverityWarning, CodeDuplicateService, id,
			fmt.Sprintf("serviceId %q is defined again here; this definition replaces the one at %s (the last one read wins); remove one of them", id, m.arena[prev].Defined))
		delete(m.reg.services, id)
		delete(m.reg.unusable, id)
	}
	m.arena = append(m.arena, Service{ID: id, RawURL: a.url.value, Description: a.description.value, Defined: a.pos})
	m.state = append(m.state, entryState{})
	i := int32(len(m.arena) - 1)
	svc, e := &m.arena[i], &m.state[i]
	// A reference resolves against what was read before this entry, so
	// the entry becomes visible only once it is resolved.
	defer func() { m.latest[id] = i }()
	fail := func(pos Position, code, why, msg string) {
		e.usable, e.whyNot = false, why+", at "+pos.String()
		d := Diagnostic{Position: pos, Severity: SeverityError, Code: code, ServiceID: id, Message: msg}
		m.diags = append(m.diags, d)
		m.reg.unusable[id] = d
	}

	raw := a.url.value
	switch {
	case raw == "":
		fail(a.url.pos, CodeMissingURL, "it has no url", fmt.Sprintf("service %q has no url: add url with an http(s) address or <serviceId>/<suffix> (the service is unusable)", id))
		return
	case isAbsolute(raw):
		scheme, ok, hasUser := checkAbsolute(raw)
		if !ok {
			fail(a.url.pos, CodeBadURL, "its url is not a valid address", fmt.Sprintf("service %q has url %q, which is not a valid address: write it as https://host/path (the service is unusable)", id, raw))
			return
		}
		if hasUser {
			fail(a.url.pos, CodeBadURL, "its url holds credentials", fmt.Sprintf("service %q has credentials inside its url: move them to an authorization of type basic (the service is unusable)", id))
			return
		}
		svc.URL = raw
		if scheme == "http" && !loopbackURL(raw) {
			m.add(a.url.pos, SeverityWarning, CodeInsecureURL, id,
				fmt.Sprintf("service %q uses plain http; HTTPS toward external services is recommended (docs/api.md#service-configuration)", id))
		}
	default:
		ref, suffix, hasSlash := strings.Cut(raw, "/")
		ti, ok := m.latest[ref]
		if !hasSlash || ref == "" || strings.Contains(ref, ":") {
			msg := fmt.Sprintf("service %q has url %q, which is neither an http(s) address nor <serviceId>/<suffix>", id, raw)
			if ok && !hasSlash {
				msg += fmt.Sprintf("; to reuse %q write %q", ref, ref+"/<suffix>")
			}
			fail(a.url.pos, CodeBadURL, "its url is neither an http(s) address nor <serviceId>/<suffix>", msg+" (the service is unusable)")
			return
		}
		e.ref = ref
		if !ok {
			msg := fmt.Sprintf("service %q refers to %q, which is not defined", id, ref)
			if later, ok := m.firstDefinition(ref); ok {
				msg = fmt.Sprintf("service %q refers to %q, which is defined only later, at %s; move %q before it (properties are read before the XML file, each top to bottom)", id, ref, later, ref)
			} else if near := m.suggest(ref); near != "" {
				msg += fmt.Sprintf(": did you mean %q?", near)
			}
			fail(a.url.pos, CodeUnknownReference, fmt.Sprintf("it refers to %q, which is not defined before it", ref), msg+" (the service is unusable)")
			return
		}
		target, ts := &m.arena[ti], m.state[ti]
		// Any entry whose url has the reference form is a reference,
		// resolved or not: the platform resolves one level only, so
		// referring to it is a chain whatever became of it.
		if ts.ref != "" {
			e.refRef = true
			// ts.ref is written in the target's url, not in this entry:
			// clipped, so that many entries referring to one target do not
			// each repeat a long id (the messages stay linear in the file).
			next := clip(ts.ref, 64)
			fix := fmt.Sprintf("give %q an address or refer to %q directly", ref, next)
			if ts.refRef {
				// ts.ref is a reference too: referring to it would be
				// the same mistake one level down.
				fix = fmt.Sprintf("give %q an http(s) address (%q is a reference as well)", ref, next)
			}
			fail(a.url.pos, CodeReferenceChain, fmt.Sprintf("it refers to %q, which is a reference itself", ref),
				fmt.Sprintf("service %q refers to %q, which itself refers to %q (%s -> %s -> %s); only one level of reference works: %s (the service is unusable)",
					id, ref, next, id, ref, next, fix))
			return
		}
		if !ts.usable {
			fail(a.url.pos, CodeBrokenReference, fmt.Sprintf("it refers to %q, which is unusable", ref),
				fmt.Sprintf("service %q refers to %q, which is unusable (%s); fix %q first (the service is unusable)", id, ref, ts.whyNot, ref))
			return
		}
		svc.URL = joinURL(target.URL, suffix)
		svc.RefersTo = ref
	}

	if a.auth != nil {
		auth, pos, code, msg := m.auth(id, a.auth)
		if msg != "" {
			fail(pos, code, "its authorization is not usable", msg)
			return
		}
		svc.Auth = auth
	}
	if svc.RefersTo != "" {
		if msg := ReferenceDropsAuth(svc, &m.arena[m.latest[svc.RefersTo]]); msg != "" {
			m.add(a.url.pos, SeverityInfo, CodeReferenceNoAuth, id, msg)
		}
	}
	e.usable = true
	m.reg.services[id] = svc
}

// ReferenceDropsAuth is the one rule of service-reference-no-auth: for
// svc, defined by a <serviceId>/<suffix> url referring to base, it says
// that base's authorization is not inherited when base has one and svc
// has none; "" otherwise. The registry reports it as an information on
// the url (restls check, restls services, the editor), and a live run's
// 401 from svc carries it as a hint. It names the two serviceIds and the
// kind of authorization, never a credential.
func ReferenceDropsAuth(svc, base *Service) string {
	if svc == nil || base == nil || svc.RefersTo == "" || svc.RefersTo != base.ID || svc.Auth.Type != AuthNone || base.Auth.Type == AuthNone {
		return ""
	}
	kind := string(base.Auth.Type)
	if base.Auth.Type == AuthOAuth && base.Auth.OAuthID != "" {
		kind = fmt.Sprintf("oAuth %q", base.Auth.OAuthID)
	}
	return fmt.Sprintf("service %q takes the address of %q (%s/...) but not its %s authorization: a <serviceId>/<suffix> url never inherits credentials, so calls of %q are sent without any and a service that needs them answers 401; give %q an authorization of its own (docs/configuration.md#reading-order-and-the-rules)",
		svc.ID, base.ID, base.ID, kind, svc.ID, svc.ID)
}

func isAbsolute(raw string) bool {
	l := strings.ToLower(raw)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") || strings.Contains(l, "://")
}

// auth validates a service's authorization; a non-empty msg makes the
// service unusable.
func (m *merger) auth(id string, a *rawAuth) (auth Auth, pos Position, code, msg string) {
	switch a.typ.value {
	case "":
		return auth, a.pos, CodeAuthMissingType, fmt.Sprintf("authorization of service %q has no type: set type to basic or oAuth (the service is unusable)", id)
	case string(AuthBasic):
		if a.encodedCredentials.value == "" {
			return auth, a.pos, CodeAuthMissingCreds, fmt.Sprintf("basic authorization of service %q has no encodedCredentials: add the base64 of login:password (the service is unusable)", id)
		}
		if !validBasic(a.encodedCredentials.value) {
			m.add(a.encodedCredentials.pos, SeverityWarning, CodeAuthBadCreds, id,
				fmt.Sprintf("encodedCredentials of service %q are not the base64 of login:password; they are sent as written; encode them with: printf '%%s' 'login:password' | base64", id))
		}
		return Auth{Type: AuthBasic, EncodedCredentials: NewSecret(a.encodedCredentials.value)}, pos, "", ""
	case string(AuthOAuth):
		oid := a.id.value
		if oid == "" {
			return auth, a.pos, CodeAuthMissingOAuth, fmt.Sprintf("oAuth authorization of service %q has no id: add an id naming an oAuth definition (the service is unusable)", id)
		}
		if why, broken := m.oauthBroken[oid]; broken {
			return auth, a.id.pos, CodeAuthBrokenOAuth, fmt.Sprintf("service %q uses oAuth %q, which is unusable: %s; fix that oAuth definition (the service is unusable)", id, oid, why)
		}
		if _, ok := m.reg.oauth[oid]; !ok {
			known := make([]string, 0, len(m.reg.oauth))
			for k := range m.reg.oauth {
				known = append(known, k)
			}
			sort.Strings(known)
			msg := fmt.Sprintf("service %q uses oAuth %q, which no oAuth element defines", id, oid)
			if near := nearest(oid, known, 1); len(near) > 0 {
				msg += fmt.Sprintf(": did you mean %q?", near[0])
			} else {
				msg += "; add <oAuth id=\"" + oid + "\" ...>"
			}
			return auth, a.id.pos, CodeAuthUnknownOAuth, msg + " (the service is unusable)"
		}
		return Auth{Type: AuthOAuth, OAuthID: oid}, pos, "", ""
	default:
		msg := fmt.Sprintf("authorization of service %q has unknown type %q", id, a.typ.value)
		if near := nearest(a.typ.value, []string{"basic", "oAuth"}, 1); len(near) > 0 {
			msg += fmt.Sprintf(": did you mean %q?", near[0])
		} else {
			msg += ": use basic or oAuth"
		}
		return auth, a.typ.pos, CodeAuthUnknownType, msg + " (the service is unusable)"
	}
}

// validBasic reports whether s is standard base64 of "login:password".
func validBasic(s string) bool {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return false
	}
	i := strings.IndexByte(string(b), ':')
	return i > 0
}

func (m *merger) oauth(o *rawOAuth) {
	id := o.get("id").value
	if id == "" {
		m.addOAuth(o.pos, SeverityError, CodeOAuthMissingField, "", "oAuth definition has no id: add id so that services can refer to it (the definition is ignored)")
		return
	}
	if r, at, ok := ControlChar(id); ok {
		m.addOAuth(o.get("id").pos, SeverityError, CodeBadOAuthID, "",
			fmt.Sprintf("oAuth id %q contains the control character %U at byte %d: remove the character here and in the services that name it (the definition is unusable)", id, r, at))
		m.oauthBroken[id] = "its id contains a control character"
		return
	}
	if prev, ok := m.oauthSeen[id]; ok {
		m.addOAuth(o.pos, SeverityWarning, CodeOAuthDuplicate, id,
			fmt.Sprintf("oAuth %q is defined again here; this definition replaces the one at %s; remove one of them", id, prev))
		delete(m.reg.oauth, id)
		delete(m.oauthBroken, id)
	}
	m.oauthSeen[id] = o.pos
	// firstErr is the short reason shown on the services that use it.
	var firstErr string
	reason := func(short string) {
		if firstErr == "" {
			firstErr = short
		}
	}
	required := func(name string) string {
		f := o.get(name)
		if f.value == "" {
			m.addOAuth(o.pos, SeverityError, CodeOAuthMissingField, id, fmt.Sprintf("oAuth %q has no %s: add it (the definition is unusable)", id, name))
			reason("it has no " + name)
		}
		return f.value
	}
	enum := func(name string, allowed ...string) string {
		v := required(name)
		if v != "" && !contains(allowed, v) {
			msg := fmt.Sprintf("oAuth %q has %s %q", id, name, v)
			if near := nearest(v, allowed, 1); len(near) > 0 {
				msg += fmt.Sprintf(": did you mean %q?", near[0])
			} else {
				msg += ": use " + strings.Join(allowed, " or ")
			}
			m.addOAuth(o.get(name).pos, SeverityError, CodeOAuthBadValue, id, msg+" (the definition is unusable)")
			// The reason is repeated on every service using this
			// definition: keep it short whatever the value's length.
			reason(fmt.Sprintf("its %s %q is not valid", name, clip(v, 40)))
		}
		return v
	}
	def := &OAuth{ID: id, Description: o.get("description").value, Defined: o.pos, AdditionalParams: o.params}
	def.URL = required("url")
	if def.URL != "" {
		if u, err := url.Parse(def.URL); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			m.addOAuth(o.get("url").pos, SeverityError, CodeOAuthBadValue, id, fmt.Sprintf("oAuth %q has url %q, which is not an http(s) address of the token endpoint (the definition is unusable)", id, def.URL))
			reason("its url is not an http(s) address")
		}
	}
	def.GrantType = enum("grantType", GrantClientCredentials, GrantPassword)
	def.ClientAuthenticationMethod = enum("clientAuthenticationMethod", ClientSecretPost, ClientSecretBasic)
	def.ClientID = required("clientId")
	def.ClientSecret = NewSecret(required("clientSecret"))
	if def.GrantType == GrantPassword {
		def.Username = required("username")
		def.Password = NewSecret(required("password"))
	} else if def.GrantType == GrantClientCredentials {
		for _, n := range []string{"username", "password"} {
			if f := o.get(n); f.set {
				m.addOAuth(f.pos, SeverityWarning, CodeOAuthUnusedField, id,
					fmt.Sprintf("oAuth %q sets %s, which grantType client_credentials does not use; remove it or use grantType password", id, n))
			}
		}
	}
	if a := o.auth; a != nil {
		switch {
		case a.typ.value != string(AuthBasic):
			msg := fmt.Sprintf("the authorization of oAuth %q has type %q; only basic is supported for the token request", id, a.typ.value)
			m.addOAuth(a.pos, SeverityError, CodeAuthUnknownType, id, msg+" (the definition is unusable)")
			reason("its authorization type is not basic")
		case a.encodedCredentials.value == "":
			msg := fmt.Sprintf("the basic authorization of oAuth %q has no encodedCredentials", id)
			m.addOAuth(a.pos, SeverityError, CodeAuthMissingCreds, id, msg+": add the base64 of login:password (the definition is unusable)")
			reason("its basic authorization has no encodedCredentials")
		default:
			if !validBasic(a.encodedCredentials.value) {
				m.addOAuth(a.encodedCredentials.pos, SeverityWarning, CodeAuthBadCreds, id,
					fmt.Sprintf("encodedCredentials of oAuth %q are not the base64 of login:password; they are sent as written", id))
			}
			def.TokenBasicAuth = NewSecret(a.encodedCredentials.value)
		}
	}
	if firstErr != "" {
		m.oauthBroken[id] = firstErr
		return
	}
	m.reg.oauth[id] = def
}

// joinURL appends suffix to base's path with one "/", keeping base's query
// and fragment where they are.
func joinURL(base, suffix string) string {
	rest := ""
	if i := strings.IndexAny(base, "?#"); i >= 0 {
		base, rest = base[:i], base[i:]
	}
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(suffix, "/") + rest
}

func (m *merger) usableIDs() []string {
	ids := make([]string, 0, len(m.reg.services))
	for id := range m.reg.services {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// sortByReadingOrder orders diagnostics by source (in reading order), then
// line and column; file-level diagnostics and other files keep their place
// before the sources.
func sortByReadingOrder(diags []Diagnostic, sources []*parsed) []Diagnostic {
	// Files that are not service sources (the platform config, missing
	// files) come after the sources.
	rank := map[string]int{}
	last := len(sources) + 1
	for i, s := range sources {
		if _, ok := rank[s.file]; !ok {
			rank[s.file] = i + 1
		}
	}
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i], diags[j]
		ra, rb := rank[a.File], rank[b.File]
		if ra == 0 {
			ra = last
		}
		if rb == 0 {
			rb = last
		}
		if ra != rb {
			return ra < rb
		}
		if a.File != b.File {
			return false
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.RuneCol < b.RuneCol
	})
	return diags
}

// checkAbsolute validates an absolute address. Plain addresses (the common
// case: scheme, host, path, no odd bytes) are checked without url.Parse,
// which dominated the merge of a large configuration.
func checkAbsolute(raw string) (scheme string, ok, hasUser bool) {
	for _, sch := range []string{"https", "http"} {
		if len(raw) > len(sch)+3 && strings.EqualFold(raw[:len(sch)], sch) && raw[len(sch):len(sch)+3] == "://" {
			rest := raw[len(sch)+3:]
			host := rest
			if i := strings.IndexAny(rest, "/?#"); i >= 0 {
				host = rest[:i]
			}
			if plainHost(host) && plainURLBytes(raw) {
				return sch, true, false
			}
			break
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", false, false
	}
	return strings.ToLower(u.Scheme), true, u.User != nil
}

// plainURLBytes reports whether s holds only printable ASCII without
// spaces, so that url.Parse could not reject it for its bytes.
func plainURLBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '%' {
			return false
		}
	}
	return true
}

// plainHost reports whether h is a non-empty DNS name with no port,
// userinfo or IP literal, the only hosts the fast path accepts.
func plainHost(h string) bool {
	if h == "" {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// ControlChar returns the first control character of s (C0, DEL or C1)
// and its byte offset. Identifiers reach generated shell text (curl
// export) and terminals, where such a character ends a comment or a
// line (issue 23, finding 10). A serviceId holds none (service-bad-id),
// wherever it is written.
func ControlChar(s string) (rune, int, bool) {
	for i, r := range s {
		if unicode.IsControl(r) {
			return r, i, true
		}
	}
	return 0, 0, false
}

func hasControlChar(s string) bool { _, _, ok := ControlChar(s); return ok }

// clip shortens s to at most n bytes (on a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// loopbackURL reports whether an absolute url names this machine: localhost
// or a loopback address (127.0.0.0/8, ::1). Plain http there never
// crosses a network, so it gets no "HTTPS recommended" warning, and
// check --strict passes on local development configurations.
func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
