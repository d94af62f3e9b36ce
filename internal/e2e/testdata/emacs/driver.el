;;; driver.el --- run docs/lsp.md's eglot setup, then check it -*- lexical-binding: t -*-
;; Driven by emacs_eglot_test.go after the docs snippet is loaded:
;; RESTLS_A (a script), RESTLS_OUT (where the result goes).
(require 'json)
(require 'cl-lib)
(require 'xref)
(let ((out (list)) (ok t))
  (condition-case err
      (let* ((a (getenv "RESTLS_A"))
             (buf (find-file-noselect a)))
        (with-current-buffer buf
          (push (cons 'mode (symbol-name major-mode)) out)
          ;; eglot-ensure connects from post-command-hook, which batch
          ;; mode never runs.
          (run-hooks 'post-command-hook)
          (let ((tries 0))
            (while (and (not (eglot-current-server)) (< tries 400))
              (accept-process-output nil 0.05)
              (setq tries (1+ tries))))
          (push (cons 'server (if (eglot-current-server) t :json-false)) out)
          ;; serviceId completion just after the quote of line 2.
          (goto-char (point-min))
          (forward-line 1)
          (search-forward "\"")
          (let* ((capf (eglot-completion-at-point))
                 (labels (and capf (all-completions "" (nth 2 capf)))))
            (push (cons 'labels (vconcat labels)) out))
          ;; References of the serviceId through eglot's xref backend,
          ;; then eglot-rename, which applies the one workspace edit to
          ;; the script and the configuration files (its question about
          ;; files not visited answered yes).
          (goto-char (point-min))
          (forward-line 1)
          (search-forward "\"c")
          (let* ((root (expand-file-name "../" default-directory)) ; the project, above scripts/
                 (id (xref-backend-identifier-at-point 'eglot))
                 (xrefs (xref-backend-references 'eglot id)))
            (push (cons 'refs
                        (vconcat
                         (sort (mapcar (lambda (x)
                                         (let ((loc (xref-item-location x)))
                                           (format "%s:%d" (file-relative-name (xref-location-group loc) root)
                                                   (xref-location-line loc))))
                                       xrefs)
                               #'string<)))
                  out)
            (cl-letf (((symbol-function 'y-or-n-p) (lambda (&rest _) t)))
              (eglot-rename "crm-v2"))
            (push (cons 'renamed (buffer-substring-no-properties (line-beginning-position) (line-end-position))) out)
            (let ((yml (find-buffer-visiting (expand-file-name "application.yml" root))))
              (push (cons 'config (if yml
                                      (with-current-buffer yml
                                        (goto-char (point-min))
                                        (if (re-search-forward "serviceId: crm[^ \n]*" nil t) (match-string 0) ""))
                                    ""))
                    out)))))
    (error (setq ok nil) (push (cons 'error (format "%S" err)) out)))
  (with-temp-file (getenv "RESTLS_OUT")
    (insert (json-encode out)))
  ;; Stop restls's process first: a request it sends while Emacs exits
  ;; (workspace/configuration after eglot's didChangeConfiguration) would
  ;; be answered into a closed pipe, an error that makes the exit 255.
  (dolist (p (process-list))
    (set-process-filter p #'ignore)
    (delete-process p))
  (kill-emacs 0))
