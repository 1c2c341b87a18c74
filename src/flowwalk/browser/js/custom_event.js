/* flowwalk: a CustomEvent carrying `detail`, dispatched on the element as a page's own code would */
(el, [type, detail]) => el.dispatchEvent(new CustomEvent(type, { bubbles: true, cancelable: true, composed: true, detail }))
