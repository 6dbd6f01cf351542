/**
 * The JSON shapes of spec 3.0–3.4 and spec 2.2, written once from the published schemas
 * (coreos/ignition `config/v3_N/schema/ignition.json`, `config/v2_2/types`). A field's
 * `since` is the spec 3 minor that added it.
 */
import { f, list, obj, type Shape } from './shape.ts';

const verification = obj({ hash: f('string') });
const headers = list(obj({ name: f('string'), value: { shape: 'string', nullable: true } }));

/** A file's contents or appendix: compression existed from 3.0, headers from 3.1. */
const fileResource = obj({
  source: f('string'),
  compression: f('string'),
  httpHeaders: f(headers, 1),
  verification: f(verification),
});

/** Config references and CAs were a separate, smaller type in 3.0. */
const configResource = obj({
  source: f('string'),
  compression: f('string', 1),
  httpHeaders: f(headers, 1),
  verification: f(verification),
});

const owner = obj({ id: f('integer'), name: f('string') });
const nodeFields = { path: f('string'), overwrite: f('boolean'), user: f(owner), group: f(owner) };

export const configV3: Shape = obj({
  ignition: f(
    obj({
      version: f('string'),
      config: f(obj({ merge: f(list(configResource)), replace: f(configResource) })),
      security: f(obj({ tls: f(obj({ certificateAuthorities: f(list(configResource)) })) })),
      timeouts: f(obj({ httpResponseHeaders: f('integer'), httpTotal: f('integer') })),
      proxy: f(obj({ httpProxy: f('string'), httpsProxy: f('string'), noProxy: f(list('string')) }), 1),
    }),
  ),
  storage: f(
    obj({
      files: f(list(obj({ ...nodeFields, contents: f(fileResource), append: f(list(fileResource)), mode: f('integer') }))),
      directories: f(list(obj({ ...nodeFields, mode: f('integer') }))),
      links: f(list(obj({ ...nodeFields, target: f('string'), hard: f('boolean') }))),
      disks: f(list('opaque')),
      raid: f(list('opaque')),
      filesystems: f(list('opaque')),
      luks: f(list('opaque'), 2),
    }),
  ),
  systemd: f(
    obj({
      units: f(
        list(
          obj({
            name: f('string'),
            enabled: f('boolean'),
            mask: f('boolean'),
            contents: f('string'),
            dropins: f(list(obj({ name: f('string'), contents: f('string') }))),
          }),
        ),
      ),
    }),
  ),
  passwd: f(
    obj({
      users: f(
        list(
          obj({
            name: f('string'),
            passwordHash: f('string'),
            sshAuthorizedKeys: f(list('string')),
            uid: f('integer'),
            gecos: f('string'),
            homeDir: f('string'),
            noCreateHome: f('boolean'),
            primaryGroup: f('string'),
            groups: f(list('string')),
            noUserGroup: f('boolean'),
            noLogInit: f('boolean'),
            shell: f('string'),
            system: f('boolean'),
            shouldExist: { shape: 'boolean', since: 2, unset: true },
          }),
        ),
      ),
      groups: f(list(obj({ name: f('string'), gid: f('integer'), passwordHash: f('string'), system: f('boolean'), shouldExist: { shape: 'boolean', since: 2, unset: true } }))),
    }),
  ),
  kernelArguments: f(obj({ shouldExist: f(list('string')), shouldNotExist: f(list('string')) }), 3),
});

const v2Reference = obj({ source: f('string'), verification: f(verification) });
const v2NodeFields = { filesystem: f('string'), ...nodeFields };
const v2UserFields = {
  uid: f('integer'),
  gecos: f('string'),
  homeDir: f('string'),
  noCreateHome: f('boolean'),
  primaryGroup: f('string'),
  groups: f(list('string')),
  noUserGroup: f('boolean'),
  noLogInit: f('boolean'),
  shell: f('string'),
  system: f('boolean'),
};

export const configV2: Shape = obj({
  ignition: f(
    obj({
      version: f('string'),
      config: f(obj({ append: f(list(v2Reference)), replace: f(v2Reference) })),
      security: f(obj({ tls: f(obj({ certificateAuthorities: f(list(v2Reference)) })) })),
      timeouts: f(obj({ httpResponseHeaders: f('integer'), httpTotal: f('integer') })),
    }),
  ),
  storage: f(
    obj({
      files: f(
        list(
          obj({
            ...v2NodeFields,
            append: f('boolean'),
            contents: f(obj({ source: f('string'), compression: f('string'), verification: f(verification) })),
            mode: f('integer'),
          }),
        ),
      ),
      directories: f(list(obj({ ...v2NodeFields, mode: f('integer') }))),
      links: f(list(obj({ ...v2NodeFields, target: f('string'), hard: f('boolean') }))),
      disks: f(list('opaque')),
      raid: f(list('opaque')),
      filesystems: f(list('opaque')),
    }),
  ),
  systemd: f(
    obj({
      units: f(
        list(
          obj({
            name: f('string'),
            enable: f('boolean'),
            enabled: f('boolean'),
            mask: f('boolean'),
            contents: f('string'),
            dropins: f(list(obj({ name: f('string'), contents: f('string') }))),
          }),
        ),
      ),
    }),
  ),
  networkd: f(obj({ units: f(list(obj({ name: f('string'), contents: f('string') }))) })),
  passwd: f(
    obj({
      users: f(
        list(
          obj({
            name: f('string'),
            passwordHash: f('string'),
            sshAuthorizedKeys: f(list('string')),
            ...v2UserFields,
            create: f(obj(v2UserFields)),
          }),
        ),
      ),
      groups: f(list(obj({ name: f('string'), gid: f('integer'), passwordHash: f('string'), system: f('boolean') }))),
    }),
  ),
});
