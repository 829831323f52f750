import { describe, it, expect, afterEach } from '@jest/globals';
import { openIndex, refreshIndex, closeIndex, type IndexHandle } from '../../sources/index/index.js';
import { graphSearch } from '../../sources/index/graph-search.js';
import { normaliseEntity } from '../../sources/index/entity-graph.js';
import { tempKb, noteText, touchLater, type TempKb } from '../helpers/kb.js';

let kb: TempKb;
let h: IndexHandle | null = null;
afterEach(() => {
  if (h) closeIndex(h);
  h = null;
  kb?.cleanup();
});

function sidecar(id: string, entities: [string, string][], rels: string[] = []): string {
  const ents = entities.map(([n, d]) => `  - name: "${n}"\n    type: concept\n    description: "${d}"`).join('\n');
  return `document_id: ${id}\nentities:\n${ents}\nrelationships:\n${rels.join('\n')}\n`;
}

const rel = (s: string, t: string, type: string, strength = 8, extra = ''): string =>
  `  - source: "${s}"\n    target: "${t}"\n    type: ${type}\n    strength: ${strength}${extra}`;

function index(k: TempKb): IndexHandle {
  const idx = openIndex(k.root, k.state);
  refreshIndex(idx);
  return idx;
}

const keys = (q: string, idx = h!): string[] => graphSearch(idx, q, 10, Date.now()).map((r) => r.note.key);

describe('graph arm', () => {
  it('reaches the note one relationship hop from the entity the query names', () => {
    kb = tempKb();
    kb.write('documents/gw.md', noteText('gw', 'gateway 504s', 'edge proxy returns 504'));
    kb.write(
      'documents/gw.entities.yaml',
      sidecar(
        'gw',
        [
          ['gateway-timeout', '504 from edge proxy'],
          ['redis-connection-pool', 'client pool'],
        ],
        [rel('gateway-timeout', 'redis-connection-pool', 'caused_by', 9)],
      ),
    );
    kb.write('documents/pool.md', noteText('pool', 'pool exhaustion', 'size the pool'));
    kb.write('documents/pool.entities.yaml', sidecar('pool', [['redis-connection-pool', 'client pool']]));
    kb.write('documents/other.md', noteText('other', 'unrelated', 'nothing'));
    kb.write('documents/other.entities.yaml', sidecar('other', [['kafka-lag', 'consumer lag']]));
    h = index(kb);
    const hits = graphSearch(h, 'gateway returning 504 errors', 10, Date.now());
    expect(hits.map((x) => x.note.key)).toEqual(['gw', 'pool']);
    expect(hits[1]!.via).toEqual(['redis-connection-pool']);
  });

  it('skips relationships whose validity ended or that were superseded', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'a', 'a'));
    kb.write(
      'documents/a.entities.yaml',
      sidecar(
        'a',
        [
          ['legacy-cache', 'old cache layer'],
          ['memcached', 'cache'],
          ['varnish', 'http cache'],
        ],
        [
          rel('legacy-cache', 'memcached', 'uses', 8, "\n    tvalid_end: '2020-01-01T00:00:00'"),
          rel('legacy-cache', 'varnish', 'uses', 8, '\n    superseded_by: r2'),
        ],
      ),
    );
    kb.write('documents/b.md', noteText('b', 'b', 'b'));
    kb.write('documents/b.entities.yaml', sidecar('b', [['memcached', 'cache']]));
    kb.write('documents/c.md', noteText('c', 'c', 'c'));
    kb.write('documents/c.entities.yaml', sidecar('c', [['varnish', 'http cache']]));
    h = index(kb);
    expect(keys('legacy cache layer')).toEqual(['a']);
  });

  it('reads entities and causal_relations from frontmatter', () => {
    kb = tempKb();
    kb.write(
      'documents/a.md',
      noteText('a', 'a', 'a', {
        entities: ['Celery Prefetch', { name: 'task_starvation' }],
        causal_relations: [{ source: 'task starvation', target: 'celery prefetch', type: 'caused_by' }],
      }),
    );
    kb.write('documents/b.md', noteText('b', 'b', 'b', { entities: ['celery-prefetch'] }));
    h = index(kb);
    expect(keys('task starvation').sort()).toEqual(['a', 'b']);
  });

  it('does not start from an entity that shares a single description word', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'a', 'a'));
    kb.write('documents/a.entities.yaml', sidecar('a', [['launchd', 'macOS service manager']]));
    h = index(kb);
    expect(keys('istio service mesh sidecar injection')).toEqual([]);
    expect(keys('launchd jobs')).toEqual(['a']);
  });

  it('weights a hub entity named by many notes below a specific one', () => {
    kb = tempKb();
    for (let i = 0; i < 6; i += 1) {
      kb.write(`documents/hub${i}.md`, noteText(`hub${i}`, 'x', 'x'));
      kb.write(`documents/hub${i}.entities.yaml`, sidecar(`hub${i}`, [['postgres', 'database']]));
    }
    kb.write('documents/spec.md', noteText('spec', 'x', 'x'));
    kb.write('documents/spec.entities.yaml', sidecar('spec', [['postgres-deadlock', 'lock cycle in postgres']]));
    h = index(kb);
    expect(keys('postgres deadlock')[0]).toBe('spec');
  });

  it('follows sidecar edits and deletions incrementally', () => {
    kb = tempKb();
    kb.write('documents/a.md', noteText('a', 'a', 'a'));
    const side = kb.write('documents/a.entities.yaml', sidecar('a', [['zookeeper', 'coordination service']]));
    h = index(kb);
    expect(keys('zookeeper')).toEqual(['a']);
    kb.write('documents/a.entities.yaml', sidecar('a', [['etcd', 'key value store']]));
    touchLater(side);
    refreshIndex(h);
    expect(keys('zookeeper')).toEqual([]);
    expect(keys('etcd')).toEqual(['a']);
    kb.remove('documents/a.entities.yaml');
    refreshIndex(h);
    expect(keys('etcd')).toEqual([]);
    expect((h.db.prepare('SELECT COUNT(*) AS c FROM entities').get() as { c: number }).c).toBe(0);
  });

  it('never returns archived or forgotten notes', () => {
    kb = tempKb();
    kb.write('archived/a.md', noteText('a', 'a', 'a'));
    kb.write('archived/a.entities.yaml', sidecar('a', [['zookeeper', 'coordination service']]));
    h = index(kb);
    expect(keys('zookeeper')).toEqual([]);
  });
});

describe('normaliseEntity', () => {
  it.each([
    ['"REDIS-CONNECTION-POOL"', 'redis-connection-pool'],
    ['Redis Connection Pool', 'redis-connection-pool'],
    ['task_starvation', 'task-starvation'],
    ['  spaced   out  ', 'spaced-out'],
    [42, '42'],
    [null, ''],
  ])('%j → %j', (raw, want) => expect(normaliseEntity(raw)).toBe(want));
});
