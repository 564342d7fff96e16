package sandbox

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"pixdash/api"

	_ "modernc.org/sqlite" // the project's SQLite driver
)

// The emulator's state file (--state) is a SQLite database of one table: every entity of the
// emulator (accounts, wallets, credentials, webhook endpoints, transactions, balance blocks,
// withdrawals, idempotency entries and the server's own counters) is one JSON row keyed by kind
// and id. After each request or timer that changed something, the rows that differ from the last
// save are written in one transaction, before the reply is sent.

// stateSchemaVersion is the version of the rows' JSON; a file of another version is refused.
const stateSchemaVersion = 1

const stateDDL = `CREATE TABLE IF NOT EXISTS entities (
	kind TEXT NOT NULL,
	id   TEXT NOT NULL,
	data TEXT NOT NULL,
	PRIMARY KEY (kind, id)
) WITHOUT ROWID`

// Row kinds of the state file.
const (
	kindMeta       = "meta"
	kindAccount    = "account"
	kindCredential = "credential"
	kindWallet     = "wallet"
	kindEndpoint   = "endpoint"
	kindTx         = "transaction"
	kindBlock      = "balance_block"
	kindWithdrawal = "withdrawal"
	kindIdem       = "idempotency"
	kindDelivery   = "delivery"
)

// persister keeps the state file in step with the server.
type persister struct {
	path string
	db   *sql.DB

	mu     sync.Mutex        // one save at a time, in the order the snapshots were taken
	closed bool              // guarded by mu
	last   map[string]string // kind\x00id -> data as last written
}

func openPersister(path string) (*persister, error) {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(5000)", "journal_mode(WAL)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	// Created 0600 first: the file holds the credentials' and webhook endpoints' secrets.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sandbox state: %w", err)
	}
	_ = f.Close()
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sandbox state %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(stateDDL); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("sandbox state %s: %w", path, err)
	}
	return &persister{path: path, db: db, last: map[string]string{}}, nil
}

func (p *persister) close() error { return p.db.Close() }

// read returns the rows of the file by kind (empty for a new file).
func (p *persister) read() (map[string][]string, error) {
	rows, err := p.db.Query(`SELECT kind, id, data FROM entities ORDER BY kind, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var kind, id, data string
		if err := rows.Scan(&kind, &id, &data); err != nil {
			return nil, err
		}
		out[kind] = append(out[kind], data)
		p.last[kind+"\x00"+id] = data
	}
	return out, rows.Err()
}

// write brings the file to rows (kind\x00id -> data) in one transaction, touching only what changed.
func (p *persister) write(rows map[string]string) error {
	var upserts, deletes []string
	for k, v := range rows {
		if p.last[k] != v {
			upserts = append(upserts, k)
		}
	}
	for k := range p.last {
		if _, ok := rows[k]; !ok {
			deletes = append(deletes, k)
		}
	}
	if len(upserts) == 0 && len(deletes) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, k := range upserts {
		kind, id := splitRowKey(k)
		if _, err := tx.ExecContext(ctx, `INSERT INTO entities(kind, id, data) VALUES(?, ?, ?)
			ON CONFLICT(kind, id) DO UPDATE SET data = excluded.data`, kind, id, rows[k]); err != nil {
			return err
		}
	}
	for _, k := range deletes {
		kind, id := splitRowKey(k)
		if _, err := tx.ExecContext(ctx, `DELETE FROM entities WHERE kind = ? AND id = ?`, kind, id); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	for _, k := range upserts {
		p.last[k] = rows[k]
	}
	for _, k := range deletes {
		delete(p.last, k)
	}
	return nil
}

func splitRowKey(k string) (string, string) {
	kind, id, _ := strings.Cut(k, "\x00")
	return kind, id
}

// --- rows ---------------------------------------------------------------------------------------

type metaRow struct {
	Version int       `json:"version"`
	SavedAt time.Time `json:"savedAt"`
	TxSeq   uint64    `json:"txSeq"`
	IDs     []byte    `json:"ids"`    // the id generator's state, so no id is handed out twice
	JWTKey  []byte    `json:"jwtKey"` // tokens issued before a restart stay valid
	Order   []string  `json:"accountOrder"`
}

type accountRow struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	City        string            `json:"city"`
	Env         api.Environment   `json:"environment"`
	PixKey      string            `json:"pixKey"`
	Fee         api.Money         `json:"pixFee"`
	WdFee       api.Money         `json:"withdrawalFee"`
	BlockCNPJ   bool              `json:"blockCnpjPayers"`
	SelfRouting bool              `json:"selfRouting"`
	Quota       int               `json:"subAccountQuota"`
	SubAccounts []string          `json:"subAccounts"` // references in creation order
	Projects    []projectRow      `json:"projects"`
	PSPs        []pspRow          `json:"pspCredentials"`
	Customers   map[string]string `json:"customers"`
}

type projectRow struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Color       string    `json:"color,omitempty"`
	Description string    `json:"description,omitempty"`
	LogoURL     string    `json:"logoUrl,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

type pspRow struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
	Active  bool   `json:"active"`
	OutCap  bool   `json:"outCapacity"`
	Down    bool   `json:"down"`
}

type credentialRow struct {
	ClientID  string   `json:"clientId"`
	Secret    string   `json:"clientSecret"`
	Account   string   `json:"account"`
	Perms     []string `json:"permissions"`
	SubAccess bool     `json:"subAccountAccess"`
	Allow     []string `json:"ipAllowlist,omitempty"`
	Revoked   bool     `json:"revoked"`
}

type walletRow struct {
	Account   string               `json:"account"`
	Ref       string               `json:"reference"`
	ID        string               `json:"id"`
	Name      string               `json:"name"`
	Status    api.SubAccountStatus `json:"status"`
	CreatedAt time.Time            `json:"createdAt"`
	Available api.Money            `json:"available"`
	Blocked   api.Money            `json:"blocked"`
	Promo     api.Money            `json:"promotional"`
	BalanceAt time.Time            `json:"balanceAt"`
}

type endpointRow struct {
	Account    string    `json:"account"`
	Ord        int       `json:"ord"`
	ID         string    `json:"id"`
	URL        string    `json:"url"`
	SubAccount string    `json:"subAccount"`
	Secret     string    `json:"secret"`
	CreatedAt  time.Time `json:"createdAt"`
}

type txRow struct {
	ID           string              `json:"id"`
	Account      string              `json:"account"`
	Wallet       string              `json:"wallet"`
	Seq          uint64              `json:"seq"`
	Status       api.TxStatus        `json:"status"`
	Type         api.TxType          `json:"type"`
	Method       api.PaymentMethod   `json:"method"`
	Amount       api.Money           `json:"amount"`
	Description  string              `json:"description,omitempty"`
	ExternalRef  string              `json:"externalReference,omitempty"`
	CustomerID   string              `json:"customerId,omitempty"`
	ProjectID    string              `json:"projectId,omitempty"`
	Metadata     map[string]any      `json:"metadata,omitempty"`
	CopyPaste    string              `json:"pixCopyPaste,omitempty"`
	ExpiresAt    time.Time           `json:"expiresAt"`
	PaidAt       *time.Time          `json:"paidAt,omitempty"`
	E2EID        string              `json:"e2eId,omitempty"`
	CPName       string              `json:"counterpartName,omitempty"`
	CPDoc        string              `json:"counterpartDocument,omitempty"`
	Failure      string              `json:"failureReason,omitempty"`
	Blocked      *api.BlockedDeposit `json:"blockedDeposit,omitempty"`
	CreatedAt    time.Time           `json:"createdAt"`
	UpdatedAt    time.Time           `json:"updatedAt"`
	ParentID     string              `json:"parentId,omitempty"`
	Split        []api.SplitItem     `json:"split,omitempty"`
	PSPCredID    string              `json:"pspCredentialId,omitempty"`
	PSPPaymentID string              `json:"pspPaymentId,omitempty"`
	IdemKey      string              `json:"idempotencyKey,omitempty"`
	Refunded     api.Money           `json:"refunded"`
	PSPRefundID  string              `json:"pspRefundId,omitempty"`
}

type blockRow struct {
	ID               string          `json:"id"`
	Account          string          `json:"account"`
	Wallet           string          `json:"wallet"`
	Ord              int             `json:"ord"`
	TxID             string          `json:"transactionId"`
	Amount           api.Money       `json:"amount"`
	Status           api.BlockStatus `json:"status"`
	BlockType        string          `json:"blockType"`
	ReferenceNumber  string          `json:"referenceNumber"`
	Reason           string          `json:"reason"`
	ExternalRef      string          `json:"externalReference,omitempty"`
	E2EID            string          `json:"e2eId,omitempty"`
	ResolutionReason string          `json:"resolutionReason,omitempty"`
	CreatedAt        time.Time       `json:"createdAt"`
	ResolvedAt       *time.Time      `json:"resolvedAt,omitempty"`
}

type withdrawalRow struct {
	ID            string               `json:"id"`
	Account       string               `json:"account"`
	Wallet        string               `json:"wallet"`
	ProjectID     string               `json:"projectId,omitempty"`
	Amount        api.Money            `json:"amount"`
	Fee           api.Money            `json:"fee"`
	Net           api.Money            `json:"net"`
	Status        api.WithdrawalStatus `json:"status"`
	PixKey        string               `json:"pixKey"`
	PixKeyType    api.PixKeyType       `json:"pixKeyType"`
	HolderName    string               `json:"holderName"`
	HolderDoc     string               `json:"holderDocument"`
	HolderDocType api.DocumentType     `json:"holderDocumentType"`
	Failure       string               `json:"failureReason,omitempty"`
	PSPRef        string               `json:"pspReference,omitempty"`
	ExternalRef   string               `json:"externalReference,omitempty"`
	CreatedAt     time.Time            `json:"createdAt"`
	ProcessedAt   *time.Time           `json:"processedAt,omitempty"`
}

type idemRow struct {
	Key        string          `json:"key"`
	Hash       string          `json:"hash"`
	Charge     *api.PixCharge  `json:"charge,omitempty"`
	Withdrawal json.RawMessage `json:"withdrawal,omitempty"`
	Created    time.Time       `json:"created"`
}

// deliveryRow is a webhook delivery not yet delivered nor failed; its secret is its endpoint's.
type deliveryRow struct {
	ID         string          `json:"id"`
	Account    string          `json:"account"`
	EndpointID string          `json:"endpointId"`
	EventID    string          `json:"eventId"`
	Event      api.EventKind   `json:"event"`
	SubAccount string          `json:"subAccount"`
	Body       json.RawMessage `json:"body"`
	Attempts   int             `json:"attempts"`
	Redelivery bool            `json:"redelivery,omitempty"`
	CreatedAt  time.Time       `json:"createdAt"`
}

// --- snapshot -----------------------------------------------------------------------------------

// snapshotRows renders the whole state as rows; s.mu is held.
func (s *Server) snapshotRows() (map[string]string, error) {
	rows := map[string]string{}
	var firstErr error
	put := func(kind, id string, v any) {
		b, err := json.Marshal(v)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s %s: %w", kind, id, err)
		}
		rows[kind+"\x00"+id] = string(b)
	}
	ids, err := s.ids.marshal()
	if err != nil {
		return nil, err
	}
	meta := metaRow{Version: stateSchemaVersion, SavedAt: s.clock.Now().UTC(), TxSeq: s.txSeq, IDs: ids, JWTKey: s.jwtKey}
	for _, a := range s.accounts {
		meta.Order = append(meta.Order, a.id)
		ar := accountRow{ID: a.id, Name: a.name, City: a.city, Env: a.env, PixKey: a.pixKey, Fee: a.fee, WdFee: a.wdFee,
			BlockCNPJ: a.blockCNPJ, SelfRouting: a.selfRouting, Quota: a.quota, Customers: a.customers}
		for _, w := range a.walletOrder {
			ar.SubAccounts = append(ar.SubAccounts, w.ref)
		}
		for _, p := range a.projects {
			ar.Projects = append(ar.Projects, projectRow{ID: p.id, Name: p.name, Color: p.color, Description: p.description,
				LogoURL: p.logoURL, CreatedAt: p.createdAt, UpdatedAt: p.updatedAt})
		}
		for _, p := range a.psps {
			ar.PSPs = append(ar.PSPs, pspRow{ID: p.id, Name: p.name, Enabled: p.enabled, Active: p.active, OutCap: p.outCap, Down: p.down})
		}
		put(kindAccount, a.id, ar)
		for ref, w := range a.wallets {
			put(kindWallet, a.id+"/"+ref, walletRow{Account: a.id, Ref: ref, ID: w.id, Name: w.name, Status: w.status,
				CreatedAt: w.createdAt, Available: w.available, Blocked: w.blocked, Promo: w.promo, BalanceAt: w.balanceAt})
			for i, b := range w.blocks {
				put(kindBlock, b.id, blockRow{ID: b.id, Account: a.id, Wallet: ref, Ord: i, TxID: b.txID, Amount: b.amount,
					Status: b.status, BlockType: b.blockType, ReferenceNumber: b.referenceNumber, Reason: b.reason,
					ExternalRef: b.externalRef, E2EID: b.e2eID, ResolutionReason: b.resolutionReason,
					CreatedAt: b.createdAt, ResolvedAt: b.resolvedAt})
			}
		}
		for i, e := range a.endpoints {
			put(kindEndpoint, e.id, endpointRow{Account: a.id, Ord: i, ID: e.id, URL: e.url, SubAccount: e.subAccount,
				Secret: e.secret, CreatedAt: e.createdAt})
		}
		for _, wd := range a.withdrawals {
			put(kindWithdrawal, wd.id, withdrawalRow{ID: wd.id, Account: a.id, Wallet: wd.wallet.ref, ProjectID: wd.projectID,
				Amount: wd.amount, Fee: wd.fee, Net: wd.net, Status: wd.status, PixKey: wd.pixKey, PixKeyType: wd.pixKeyType,
				HolderName: wd.holderName, HolderDoc: wd.holderDoc, HolderDocType: wd.holderDocType, Failure: wd.failure,
				PSPRef: wd.pspRef, ExternalRef: wd.externalRef, CreatedAt: wd.createdAt, ProcessedAt: wd.processedAt})
		}
	}
	put(kindMeta, "server", meta)
	for _, c := range s.creds {
		cr := credentialRow{ClientID: c.clientID, Secret: c.secret.Reveal(), Account: c.acct.id, SubAccess: c.subAccess, Revoked: c.revoked}
		for p := range c.perms {
			cr.Perms = append(cr.Perms, p)
		}
		sort.Strings(cr.Perms)
		for _, n := range c.allow {
			cr.Allow = append(cr.Allow, n.String())
		}
		put(kindCredential, c.clientID, cr)
	}
	for _, t := range s.txs {
		put(kindTx, t.id, txRow{ID: t.id, Account: t.wallet.acct.id, Wallet: t.wallet.ref, Seq: t.seq, Status: t.status,
			Type: t.typ, Method: t.method, Amount: t.amount, Description: t.description, ExternalRef: t.externalRef,
			CustomerID: t.customerID, ProjectID: t.projectID, Metadata: t.metadata, CopyPaste: t.copyPaste,
			ExpiresAt: t.expiresAt, PaidAt: t.paidAt, E2EID: t.e2eID, CPName: t.cpName, CPDoc: t.cpDoc, Failure: t.failure,
			Blocked: t.blocked, CreatedAt: t.createdAt, UpdatedAt: t.updatedAt, ParentID: t.parentID, Split: t.split,
			PSPCredID: t.pspCredID, PSPPaymentID: t.pspPaymentID, IdemKey: t.idemKey, Refunded: t.refunded, PSPRefundID: t.pspRefundID})
	}
	for k, e := range s.idem {
		r := idemRow{Key: k, Hash: e.hash, Created: e.created}
		if e.withdrawal != nil {
			r.Withdrawal = json.RawMessage(bytes.TrimSpace(e.withdrawal))
		} else {
			ch := e.charge
			r.Charge = &ch
		}
		put(kindIdem, strconv.Quote(k), r)
	}
	for _, x := range s.deliv.pending() {
		put(kindDelivery, x.id, deliveryRow{ID: x.id, Account: x.accountID, EndpointID: x.endpointID, EventID: x.eventID,
			Event: x.event, SubAccount: x.subAccount, Body: json.RawMessage(x.body), Attempts: x.attempts,
			Redelivery: x.redelivery, CreatedAt: x.createdAt})
	}
	return rows, firstErr
}

// save writes what changed since the last save; without a state file it does nothing.
func (s *Server) save() error {
	p := s.persist
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	s.mu.Lock()
	rows, err := s.snapshotRows()
	s.mu.Unlock()
	if err == nil {
		err = p.write(rows)
	}
	if err != nil {
		s.log.Error("sandbox: state not saved", "file", p.path, "err", err)
		return fmt.Errorf("sandbox state %s: %w", p.path, err)
	}
	return nil
}

// --- restore ------------------------------------------------------------------------------------

// restore rebuilds the state from rows (see persister.read) and re-arms its timers; s.mu is held.
// It reports false for a file without state.
func (s *Server) restore(rows map[string][]string) (bool, error) {
	if len(rows[kindMeta]) == 0 {
		return false, nil
	}
	dec := func(data string, v any) error {
		d := json.NewDecoder(bytes.NewReader([]byte(data)))
		d.UseNumber() // metadata numbers keep their digits
		return d.Decode(v)
	}
	var meta metaRow
	if err := dec(rows[kindMeta][0], &meta); err != nil {
		return false, fmt.Errorf("meta: %w", err)
	}
	if meta.Version != stateSchemaVersion {
		return false, fmt.Errorf("state file version %d, this pixdash reads version %d", meta.Version, stateSchemaVersion)
	}
	if err := s.ids.unmarshal(meta.IDs); err != nil {
		return false, fmt.Errorf("id generator: %w", err)
	}
	if len(meta.JWTKey) > 0 {
		s.jwtKey = meta.JWTKey
	}
	s.txSeq = meta.TxSeq
	if now := s.clock.Now(); now.Before(meta.SavedAt) {
		s.log.Warn("sandbox: the clock is before the state's last save", "now", now.UTC(), "saved", meta.SavedAt)
	}
	accts := map[string]*account{}
	order := map[*account][]string{} // sub-account references in creation order
	for _, data := range rows[kindAccount] {
		var r accountRow
		if err := dec(data, &r); err != nil {
			return false, fmt.Errorf("account: %w", err)
		}
		a := &account{id: r.ID, name: r.Name, city: r.City, env: r.Env, pixKey: r.PixKey, fee: r.Fee, wdFee: r.WdFee,
			blockCNPJ: r.BlockCNPJ, selfRouting: r.SelfRouting, quota: r.Quota, wallets: map[string]*wallet{},
			customers: r.Customers, withdrawals: map[string]*withdrawal{}}
		if a.customers == nil {
			a.customers = map[string]string{}
		}
		for _, p := range r.Projects {
			a.projects = append(a.projects, &project{id: p.ID, name: p.Name, color: p.Color, description: p.Description,
				logoURL: p.LogoURL, createdAt: p.CreatedAt, updatedAt: p.UpdatedAt})
		}
		for _, p := range r.PSPs {
			a.psps = append(a.psps, &psp{id: p.ID, name: p.Name, enabled: p.Enabled, active: p.Active, outCap: p.OutCap, down: p.Down})
		}
		accts[a.id] = a
		order[a] = r.SubAccounts
	}
	for _, id := range meta.Order {
		if a := accts[id]; a != nil {
			s.accounts = append(s.accounts, a)
		}
	}
	if len(s.accounts) != len(accts) {
		return false, errors.New("accounts do not match the account order")
	}
	walletOf := func(acct, ref string) (*wallet, error) {
		a := accts[acct]
		if a == nil || a.wallets[ref] == nil {
			return nil, fmt.Errorf("unknown wallet %q of account %s", ref, acct)
		}
		return a.wallets[ref], nil
	}
	for _, data := range rows[kindWallet] {
		var r walletRow
		if err := dec(data, &r); err != nil {
			return false, fmt.Errorf("wallet: %w", err)
		}
		a := accts[r.Account]
		if a == nil {
			return false, fmt.Errorf("wallet %s: unknown account %s", r.ID, r.Account)
		}
		w := newWallet(a, r.Ref, r.ID, r.Name, r.Status, r.CreatedAt)
		w.available, w.blocked, w.promo, w.balanceAt = r.Available, r.Blocked, r.Promo, r.BalanceAt
		a.wallets[r.Ref] = w
	}
	for _, a := range accts {
		if a.main() == nil {
			return false, fmt.Errorf("account %s has no main wallet", a.id)
		}
		for _, ref := range order[a] {
			if w := a.wallets[ref]; w != nil && ref != "" {
				a.walletOrder = append(a.walletOrder, w)
			}
		}
	}
	for _, data := range rows[kindCredential] {
		var r credentialRow
		if err := dec(data, &r); err != nil {
			return false, fmt.Errorf("credential: %w", err)
		}
		a := accts[r.Account]
		if a == nil {
			return false, fmt.Errorf("credential %s: unknown account", r.ClientID)
		}
		c := &credential{clientID: r.ClientID, secret: api.Secret(r.Secret), acct: a, perms: map[string]bool{},
			subAccess: r.SubAccess, revoked: r.Revoked}
		for _, p := range r.Perms {
			c.perms[p] = true
		}
		for _, e := range r.Allow {
			_, n, err := net.ParseCIDR(e)
			if err != nil {
				return false, fmt.Errorf("credential %s: %w", r.ClientID, err)
			}
			c.allow = append(c.allow, n)
		}
		s.creds[c.clientID] = c
	}
	var eps []endpointRow
	for _, data := range rows[kindEndpoint] {
		var r endpointRow
		if err := dec(data, &r); err != nil {
			return false, fmt.Errorf("webhook endpoint: %w", err)
		}
		eps = append(eps, r)
	}
	sort.Slice(eps, func(i, j int) bool { return eps[i].Ord < eps[j].Ord })
	for _, r := range eps {
		a := accts[r.Account]
		if a == nil {
			return false, fmt.Errorf("webhook endpoint %s: unknown account", r.ID)
		}
		a.endpoints = append(a.endpoints, &endpoint{id: r.ID, url: r.URL, subAccount: r.SubAccount, secret: r.Secret, createdAt: r.CreatedAt})
	}
	var txs []*tx
	for _, data := range rows[kindTx] {
		var r txRow
		if err := dec(data, &r); err != nil {
			return false, fmt.Errorf("transaction: %w", err)
		}
		w, err := walletOf(r.Account, r.Wallet)
		if err != nil {
			return false, fmt.Errorf("transaction %s: %w", r.ID, err)
		}
		txs = append(txs, &tx{id: r.ID, wallet: w, status: r.Status, typ: r.Type, method: r.Method, amount: r.Amount,
			description: r.Description, externalRef: r.ExternalRef, customerID: r.CustomerID, projectID: r.ProjectID,
			metadata: r.Metadata, copyPaste: r.CopyPaste, expiresAt: r.ExpiresAt, paidAt: r.PaidAt, e2eID: r.E2EID,
			cpName: r.CPName, cpDoc: r.CPDoc, failure: r.Failure, blocked: r.Blocked, createdAt: r.CreatedAt,
			updatedAt: r.UpdatedAt, parentID: r.ParentID, seq: r.Seq, split: r.Split, pspCredID: r.PSPCredID,
			pspPaymentID: r.PSPPaymentID, idemKey: r.IdemKey, refunded: r.Refunded, pspRefundID: r.PSPRefundID})
	}
	// Creation order, so that a later charge with the same external reference wins its index.
	sort.Slice(txs, func(i, j int) bool { return txs[i].seq < txs[j].seq })
	for _, t := range txs {
		w := t.wallet
		w.txs[t.id] = t
		s.txs[t.id] = t
		if t.externalRef != "" {
			w.byExtRef[t.externalRef] = t
		}
		if t.idemKey != "" {
			w.byIdemKey[t.idemKey] = t
		}
	}
	var blocks []*blockRow
	for _, data := range rows[kindBlock] {
		r := &blockRow{}
		if err := dec(data, r); err != nil {
			return false, fmt.Errorf("balance block: %w", err)
		}
		blocks = append(blocks, r)
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].Ord < blocks[j].Ord })
	for _, r := range blocks {
		w, err := walletOf(r.Account, r.Wallet)
		if err != nil {
			return false, fmt.Errorf("balance block %s: %w", r.ID, err)
		}
		b := &block{id: r.ID, txID: r.TxID, wallet: w, amount: r.Amount, status: r.Status, blockType: r.BlockType,
			referenceNumber: r.ReferenceNumber, reason: r.Reason, externalRef: r.ExternalRef, e2eID: r.E2EID,
			resolutionReason: r.ResolutionReason, createdAt: r.CreatedAt, resolvedAt: r.ResolvedAt}
		w.blocks = append(w.blocks, b)
		s.blocks[b.id] = b
	}
	for _, data := range rows[kindWithdrawal] {
		var r withdrawalRow
		if err := dec(data, &r); err != nil {
			return false, fmt.Errorf("withdrawal: %w", err)
		}
		w, err := walletOf(r.Account, r.Wallet)
		if err != nil {
			return false, fmt.Errorf("withdrawal %s: %w", r.ID, err)
		}
		t := s.txs[r.ID]
		if t == nil {
			return false, fmt.Errorf("withdrawal %s has no transaction", r.ID)
		}
		w.acct.withdrawals[r.ID] = &withdrawal{id: r.ID, wallet: w, tx: t, projectID: r.ProjectID, amount: r.Amount,
			fee: r.Fee, net: r.Net, status: r.Status, pixKey: r.PixKey, pixKeyType: r.PixKeyType, holderName: r.HolderName,
			holderDoc: r.HolderDoc, holderDocType: r.HolderDocType, failure: r.Failure, pspRef: r.PSPRef,
			externalRef: r.ExternalRef, createdAt: r.CreatedAt, processedAt: r.ProcessedAt}
	}
	var idems []idemRow
	for _, data := range rows[kindIdem] {
		var r idemRow
		if err := dec(data, &r); err != nil {
			return false, fmt.Errorf("idempotency entry: %w", err)
		}
		idems = append(idems, r)
	}
	sort.Slice(idems, func(i, j int) bool { return idems[i].Created.Before(idems[j].Created) })
	for _, r := range idems {
		e := &idemEntry{hash: r.Hash, created: r.Created}
		if r.Withdrawal != nil {
			e.withdrawal = append([]byte(nil), r.Withdrawal...)
		} else if r.Charge != nil {
			e.charge = *r.Charge
		}
		s.idemStore(r.Key, e)
	}
	var dels []deliveryRow
	for _, data := range rows[kindDelivery] {
		var r deliveryRow
		if err := dec(data, &r); err != nil {
			return false, fmt.Errorf("delivery: %w", err)
		}
		dels = append(dels, r)
	}
	sort.SliceStable(dels, func(i, j int) bool { return dels[i].CreatedAt.Before(dels[j].CreatedAt) })
	for _, r := range dels {
		a := accts[r.Account]
		if a == nil {
			continue
		}
		for _, e := range a.endpoints {
			if e.id == r.EndpointID { // an endpoint gone takes its deliveries with it
				s.deliv.enqueue(&delivery{id: r.ID, accountID: a.id, endpointID: e.id, url: e.url, secret: e.secret,
					eventID: r.EventID, event: r.Event, subAccount: r.SubAccount, body: []byte(r.Body),
					redelivery: r.Redelivery, attempts: r.Attempts, status: DeliveryPending, createdAt: r.CreatedAt})
			}
		}
	}
	return true, nil
}

// loadFixtureEndpoints registers the fixture's webhook endpoints on a restored state too (in the
// account of the same name and environment): one already there with its secret is kept as is.
// s.mu is held.
func (s *Server) loadFixtureEndpoints(fx *Fixture) {
	for i := range fx.Accounts {
		af := &fx.Accounts[i]
		for _, a := range s.accounts {
			if a.name == strings.TrimSpace(af.Name) && string(a.env) == af.Environment {
				s.loadEndpoints(a, af)
				break
			}
		}
	}
}

// rearm schedules again what was waiting on the clock when the state was saved: charge expiry,
// the return of blocked deposits, refund confirmations and withdrawal completion. What is already
// due happens at once (on the clock's next tick). s.mu is held.
func (s *Server) rearm() {
	now := s.clock.Now()
	due := func(at time.Time) time.Duration {
		if d := at.Sub(now); d > 0 {
			return d
		}
		return 0
	}
	var txs []*tx
	for _, t := range s.txs {
		txs = append(txs, t)
	}
	sort.Slice(txs, func(i, j int) bool { return txs[i].seq < txs[j].seq })
	for _, t := range txs {
		id := t.id
		switch {
		case t.typ == api.TypePayment && t.status == api.StatusPending:
			s.armExpiry(t, now)
		case t.typ == api.TypePayment && t.blocked != nil && t.blocked.Refund != nil && t.blocked.Refund.Status == api.RefundPending:
			t.timer = s.after(due(t.updatedAt.Add(s.scaled(BlockedRefundDelay))), func() {
				if cur := s.txs[id]; cur != nil {
					s.confirmBlockedRefund(cur, s.clock.Now())
				}
			})
		case t.typ == api.TypeRefund && t.status == api.StatusPending:
			t.timer = s.after(due(t.createdAt.Add(s.scaled(RefundConfirmDelay))), func() {
				if cur := s.txs[id]; cur != nil {
					s.confirmRefund(cur, s.clock.Now())
				}
			})
		}
	}
	for _, a := range s.accounts {
		for _, wd := range a.withdrawals {
			if wd.status != api.WithdrawalPending {
				continue
			}
			id, acct := wd.id, a
			wd.timer = s.after(due(wd.createdAt.Add(s.scaled(WithdrawalDelay))), func() {
				if cur := acct.withdrawals[id]; cur != nil {
					cur.timer = 0
					s.completeWithdrawal(cur, s.clock.Now())
				}
			})
		}
	}
}
